/**
 * What the chat-completions suites share: the real agent app on a loopback port (so the official `openai` client can
 * reach it), a fake OpenAI provider, the pet store the agent's tools call and the real rai app; Alice's provider
 * credential and tool set; the client as a user configures it. (Messages and errors: chat-completions-messages.ts.)
 *
 * A suite calls `useCompletionsStack()` once at its top: its beforeAll starts the stack and fills the bindings exported
 * below (read them inside tests and hooks), its afterAll stops it. Each suite gets a stack (and database) of its own.
 */
import OpenAI from 'openai';
import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';
import { startFakeLlm, startPetStore, type FakeLlm, type PetStore } from '@platform/testing';

import { startRaiApp, type RaiTestApp } from '../../rai/test/helpers';
import { agentBody, startAgentApp, type AgentTestApp } from './helpers';
import { OPENAI_KEY } from './inference-fixture';
import { openApi30 } from './pet-store-docs';

const SECRET = 'completions-internal-secret-0123456789abcdef';
export const ALICE = { user_id: 'alice', org_id: 'acme' };

export let t: AgentTestApp;
export let llm: FakeLlm;
export let store: PetStore;
export let rai: RaiTestApp;
/** Keys of Alice (org acme) and of Bob (org globex). */
export let alice: string;
export let bob: string;
let server: RunningServer;
let raiServer: RunningServer;
let credential: string;
let base: string;

/** Starts the stack before the suite's tests and stops it after them. */
export function useCompletionsStack(): void {
  beforeAll(async () => {
    llm = await startFakeLlm('openai');
    store = await startPetStore();
    rai = await startRaiApp({ internalSecret: SECRET });
    raiServer = await listen(rai.app, 0, undefined, '127.0.0.1');
    t = await startAgentApp({
      allowHosts: [llm.port, store.port, raiServer.port].map((p) => `127.0.0.1:${p}`).join(','),
      internalSecret: SECRET,
      rai: { baseUrl: `http://127.0.0.1:${raiServer.port}`, secret: SECRET, timeoutMs: 3_000 },
      providerTimeoutMs: 5_000,
    });
    server = await listen(t.app, 0, undefined, '127.0.0.1');
    base = `http://127.0.0.1:${server.port}`;
    alice = await t.dbs.mintKey(ALICE);
    bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'globex' });
    const cred = await request(t.app)
      .post('/v3/providers/credentials')
      .set('x-api-key', alice)
      .send({ name: 'llm', provider_id: 'openai', credentials: { api_key: OPENAI_KEY, base_url: llm.baseUrl } });
    credential = cred.body.credential_id as string;
    await request(t.app)
      .post('/v3/tools/')
      .set('x-api-key', alice)
      .send({ tool_set_name: 'pets', openapi_schema: openApi30(store.url) })
      .expect(201);
  });
  afterAll(async () => {
    await server.close(1_000);
    await raiServer.close(0);
    await Promise.all([llm.close(), store.close(), rai.close()]);
    await t.close();
  });
}

/** One of Alice's agents on the fake provider (MEMORY on by default); its id. */
export async function agent(over: Record<string, unknown> = {}): Promise<string> {
  const res = await request(t.app)
    .post('/v3/agents/')
    .set('x-api-key', alice)
    .send(
      agentBody({ llm_credential_id: credential, provider_id: 'openai', system_prompt: 'You are helpful.', ...over }),
    );
  if (res.status !== 201) throw new Error(`agent: ${res.status} ${res.text}`);
  return String(res.body.id);
}

/** The openai client as a user configures it: base URL of the agent, our key as its key. */
export const client = (agentId: string, apiKey = alice) =>
  new OpenAI({ baseURL: `${base}/v3/inference/${agentId}`, apiKey, maxRetries: 0, timeout: 10_000 });
/** The body the fake provider received last. */
export const lastSent = () => llm.bodies().at(-1)!;
