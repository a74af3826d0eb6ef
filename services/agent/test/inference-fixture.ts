import request from 'supertest';

import { startFakeLlm, type FakeLlm } from '@platform/testing';

import { agentBody, startAgentApp, type AgentTestApp, type AgentTestOptions } from './helpers';

/** Provider keys shaped like real ones (and unlike our `sk_` keys, so log redaction does not hide a leak). */
export const OPENAI_KEY = 'sk-proj-T3stK3y0penAi9x8c7v6b5n4m3l2k1j0';
export const ANTHROPIC_KEY = 'sk-ant-api03-T3stK3yAnthr0pic1q2w3e4r5t6y7u8i9o0';

export interface InferenceFixture {
  t: AgentTestApp;
  openai: FakeLlm;
  anthropic: FakeLlm;
  /** Stores a credential pointing at one of the fakes; returns its id. */
  credential(apiKey: string, provider: 'openai' | 'anthropic', over?: object): Promise<string>;
  /** Creates an agent (general, or single-task with `single: true`); returns its id as a string. */
  agent(apiKey: string, body: Record<string, unknown>, single?: boolean): Promise<string>;
  chat(apiKey: string, body: Record<string, unknown>): request.Test;
  close(): Promise<void>;
}

/** The real agent app with both fake providers allow-listed, exactly as an operator would allow a local server. */
export async function startInferenceFixture(opts: AgentTestOptions = {}): Promise<InferenceFixture> {
  const openai = await startFakeLlm('openai');
  const anthropic = await startFakeLlm('anthropic');
  const t = await startAgentApp({ allowHosts: `127.0.0.1:${openai.port},127.0.0.1:${anthropic.port}`, ...opts });
  return {
    t,
    openai,
    anthropic,
    async credential(apiKey, provider, over = {}) {
      const fake = provider === 'openai' ? openai : anthropic;
      const body = {
        name: provider,
        provider_id: provider,
        credentials: { api_key: provider === 'openai' ? OPENAI_KEY : ANTHROPIC_KEY, base_url: fake.baseUrl },
        ...over,
      };
      const res = await request(t.app).post('/v3/providers/credentials').set('x-api-key', apiKey).send(body);
      if (res.status !== 201) throw new Error(`credential not created: ${res.status} ${res.text}`);
      return res.body.credential_id as string;
    },
    async agent(apiKey, body, single = false) {
      const path = single ? '/v3/agents/template/single-task' : '/v3/agents/';
      const res = await request(t.app)
        .post(path)
        .set('x-api-key', apiKey)
        .send(single ? body : agentBody(body));
      if (res.status !== 201) throw new Error(`agent not created: ${res.status} ${res.text}`);
      return String(res.body.id);
    },
    chat: (apiKey, body) => request(t.app).post('/v3/inference/chat/').set('x-api-key', apiKey).send(body),
    async close() {
      await Promise.all([openai.close(), anthropic.close()]);
      await t.close();
    },
  };
}
