import type { LiveIndexStore } from './live-index.types';

/** The texts of chunks (the index does not keep them): the `size` most recently at hand kept in memory. */
export function createTextCache(store: Pick<LiveIndexStore, 'texts'>, size: number) {
  const textCache = new Map<string, string>();

  const remember = (id: string, text: string) => {
    textCache.delete(id);
    textCache.set(id, text);
    while (textCache.size > size) textCache.delete(textCache.keys().next().value!);
  };

  /** The texts of chunks: those at hand (changes applied, answers given), the others from the store. */
  async function texts(ragId: string, ids: string[]): Promise<Map<string, string>> {
    const missing = ids.filter((id) => !textCache.has(id));
    if (missing.length > 0) for (const [id, text] of await store.texts(ragId, missing)) remember(id, text);
    const out = new Map<string, string>();
    for (const id of ids) {
      const t = textCache.get(id);
      if (t !== undefined) out.set(id, t);
    }
    return out;
  }

  return { remember, texts };
}
