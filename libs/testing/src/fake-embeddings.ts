import { startLocalServer, type LocalServer } from './local-server';

export interface FakeEmbeddings extends LocalServer {
  /** The base_url to store on a credential (`.../v1`). */
  baseUrl: string;
  /** The next `count` requests answer HTTP `status` (default 500) instead of vectors. */
  fail(count: number, status?: number): void;
  /** The vector this server gives `text`. */
  vectorOf(text: string): number[];
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * A local stand-in for an embeddings provider speaking the OpenAI protocol (POST /v1/embeddings, `{model, input}`
 * with a string or a list of strings). Its vectors are deterministic bags of concepts: one dimension per concept,
 * counting the text's words listed under it, plus a constant dimension so no vector is zero. Texts that share no
 * word but name the same concept ("automobile", "car") get close vectors.
 */
export async function startFakeEmbeddings(concepts: Record<string, string[]>): Promise<FakeEmbeddings> {
  const names = Object.keys(concepts);
  const conceptOf = new Map<string, number>();
  names.forEach((name, i) => {
    for (const w of concepts[name]!) conceptOf.set(w.toLowerCase(), i);
  });
  const vectorOf = (text: string) => {
    const v = new Array<number>(names.length + 1).fill(0);
    v[names.length] = 0.05;
    for (const w of words(text)) {
      const i = conceptOf.get(w);
      if (i !== undefined) v[i]! += 1;
    }
    return v;
  };
  let failures: { left: number; status: number } = { left: 0, status: 500 };
  const server = await startLocalServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return res.writeHead(404).end();
    if (failures.left > 0) {
      failures.left--;
      res.writeHead(failures.status, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: 'scripted failure' } }));
    }
    const input = (req.json as { input?: unknown } | undefined)?.input;
    const texts =
      typeof input === 'string'
        ? [input]
        : Array.isArray(input) && input.every((t) => typeof t === 'string')
          ? input
          : null;
    if (!texts) {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: 'input must be a string or a list of strings' } }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        data: texts.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })),
        model: (req.json as { model?: unknown }).model,
        usage: { prompt_tokens: texts.length, total_tokens: texts.length },
      }),
    );
  });
  return Object.assign(server, {
    baseUrl: `${server.url}/v1`,
    fail: (count: number, status = 500) => void (failures = { left: count, status }),
    vectorOf,
  });
}
