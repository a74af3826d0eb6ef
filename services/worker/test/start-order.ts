/**
 * Asserts that runs reached the provider in the order they were triggered, as a concurrency limit lets them in:
 * `order[i]` is the trigger rank of the i-th call, `at[i]` when it arrived. The first two calls took the free places
 * together and are not checked; after them a call may come before one triggered earlier only when both arrived within
 * `togetherMs` (two places freed at the same instant let two waiters in, and their calls race on the wire).
 */
export function expectTriggerOrder(order: number[], at: number[], togetherMs: number): void {
  for (let i = 3; i < order.length; i++) {
    const before = Math.max(...order.slice(2, i));
    if (order[i]! < before) expect(at[i]! - at[order.slice(0, i).indexOf(before)]!).toBeLessThan(togetherMs);
  }
}
