/**
 * What the sessions v3 suites share: the real agent app with the fake providers (inference-fixture.ts), keys of three
 * callers and two of Alice's agents with MEMORY. (One call per sessions route: sessions-calls.ts.)
 *
 * A suite calls `useSessionsApp()` once at its top: its beforeAll starts the app and fills the bindings exported below
 * (read them inside tests and hooks), its afterAll stops it. Each suite gets an app (and database) of its own.
 */
import { startInferenceFixture, type InferenceFixture } from './inference-fixture';

export let f: InferenceFixture;
export let alice: string;
export let bob: string;
export let aliceElsewhere: string;
export let agentId: string;
export let otherAgentId: string;

const MEMORY = [{ type: 'MEMORY', config: { max_messages_context_count: 10 }, priority: 0 }];

/** Starts the app before the suite's tests and stops it after them. */
export function useSessionsApp(): void {
  beforeAll(async () => {
    f = await startInferenceFixture();
    alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
    bob = await f.t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
    aliceElsewhere = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
    const credential = await f.credential(alice, 'openai');
    agentId = await f.agent(alice, { llm_credential_id: credential, features: MEMORY, system_prompt: null });
    otherAgentId = await f.agent(alice, { llm_credential_id: credential, features: MEMORY, system_prompt: null });
  });
  afterAll(() => f.close());
}
