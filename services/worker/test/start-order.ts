/**
 * Asserts that runs reached the provider in the order a concurrency limit lets them in: `order[i]` is the trigger rank
 * of the i-th call to arrive. The first `limit` calls took the free places as they came and are not checked. After
 * them, a run is let in only when fewer runs triggered before it are still waiting than there are places free, and
 * a run let in holds its place until its call is made; so when a call arrives, the runs triggered before it whose
 * calls are still to come are at most `limit - 1` (they were let in with it and race it on the wire). The bound
 * is structural: it holds however slow the machine is, and a gate that let a later run overtake waiting ones
 * breaks it as soon as more than `limit - 1` of them wait.
 */
export function expectTriggerOrder(order: number[], limit: number): void {
  for (let i = limit; i < order.length; i++) {
    const overtaken = order.slice(i + 1).filter((rank) => rank < order[i]!);
    expect({ call: i, rank: order[i], overtaken }).toEqual({
      call: i,
      rank: order[i],
      overtaken: overtaken.slice(0, limit - 1),
    });
  }
}
