/**
 * A queue per key: each operation starts when the previous one of its key has settled (fulfilled or rejected), and
 * its own result (or error) is returned. A key's entry is dropped once its last operation has settled.
 */
export function createKeyedQueue() {
  const queues = new Map<string, Promise<unknown>>();
  return function serial<T>(key: string, op: () => Promise<T>): Promise<T> {
    const prev = queues.get(key) ?? Promise.resolve();
    const next = prev.then(op, op);
    const tail = next.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return next;
  };
}

/** Runs an operation after the previous one of its key (see `createKeyedQueue`). */
export type KeyedQueue = ReturnType<typeof createKeyedQueue>;
