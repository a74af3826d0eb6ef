/**
 * Each service as the security suites see it: its real app (createApp on real FerretDB and Redis, through the
 * service's own test helpers), keys of users A, B and C, objects of every kind owned by A, and one probe per route
 * for the cross-tenant matrix. The other suites (mass assignment, secrets) reuse the same worlds.
 */
import { startAgentWorld } from './agent-world';
import { startGraphWorld, startRagWorld } from './knowledge-worlds';
import { startSchedulerWorld } from './scheduler-world';
import { startOcrWorld, startRaiWorld, startVoiceWorld } from './single-resource-worlds';
import type { SecurityWorld } from './world-kit';

export { hexId, type SecurityWorld } from './world-kit';
export { startSchedulerWorld } from './scheduler-world';
export { petsDocument, startAgentWorld } from './agent-world';
export { startGraphWorld, startRagWorld, startSite } from './knowledge-worlds';
export { startOcrWorld, startRaiWorld, startVoiceWorld } from './single-resource-worlds';

export const WORLDS: Record<string, () => Promise<SecurityWorld>> = {
  scheduler: startSchedulerWorld,
  agent: startAgentWorld,
  rag: startRagWorld,
  rai: startRaiWorld,
  voice: startVoiceWorld,
  ocr: startOcrWorld,
  graph: startGraphWorld,
};

/** Declares `body` once per service, inside a describe of its own with the world started before and closed after. */
export function describeEachWorld(body: (world: () => SecurityWorld) => void): void {
  describe.each(Object.keys(WORLDS))('%s', (service) => {
    let world: SecurityWorld | undefined;
    beforeAll(async () => {
      world = await WORLDS[service]!();
    }, 120_000);
    afterAll(async () => {
      await world?.close();
    });
    body(() => world!);
  });
}
