import type { Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { createOutboundClient } from '@platform/outbound';
import { captureLogger, createTestDatabases, type TestDatabases } from '@platform/testing';

import { createApp } from '../src/app';

export interface RaiTestApp {
  app: Express;
  dbs: TestDatabases;
  lines: string[];
  /** Creates a policy for the key's owner; returns its id. */
  policy(key: string, body: Record<string, unknown>): Promise<string>;
  /** Evaluates a text. */
  check(key: string, policyId: string, text: string, direction?: 'input' | 'output'): request.Test;
  close(): Promise<void>;
}

/** The real rai app on a fresh database of the real server. */
export async function startRaiApp(
  opts: {
    internalSecret?: string | null;
    /** The agent service that opens LLM judge credentials (with `internalSecret`); none by default. */
    agentUrl?: string;
    /** Private hosts the LLM judge may reach (a local stand-in provider). */
    allowHosts?: string;
  } = {},
): Promise<RaiTestApp> {
  const dbs = await createTestDatabases('rai');
  const { logger, lines } = captureLogger('rai');
  const outbound = createOutboundClient({
    allowHosts: [opts.allowHosts, opts.agentUrl && new URL(opts.agentUrl).host].filter(Boolean).join(','),
  });
  const secret = opts.internalSecret ?? null;
  const app = createApp({
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    internalSecret: secret,
    outbound,
    agent: opts.agentUrl && secret ? { baseUrl: opts.agentUrl, secret, timeoutMs: 2_000 } : null,
    readiness: { mongodb: () => pingMongo(dbs.conn) },
  });
  await syncIndexes(dbs.conn);
  return {
    app,
    dbs,
    lines,
    async policy(key, body) {
      const res = await request(app)
        .post('/v1/rai/policies')
        .set('x-api-key', key)
        .send({ name: 'test policy', ...body });
      if (res.status !== 201) throw new Error(`policy not created: ${res.status} ${res.text}`);
      return res.body._id as string;
    },
    check: (key, policyId, text, direction = 'input') =>
      request(app).post('/v1/rai/inference').set('x-api-key', key).send({ policy_id: policyId, text, direction }),
    close: async () => {
      outbound.close();
      await dbs.cleanup();
    },
  };
}

/** Every PII type set to `action`. */
export const allPii = (action: 'redact' | 'block') =>
  Object.fromEntries(
    [
      'CREDIT_CARD',
      'EMAIL_ADDRESS',
      'PHONE_NUMBER',
      'PERSON',
      'LOCATION',
      'IP_ADDRESS',
      'US_SSN',
      'URL',
      'DATE_TIME',
    ].map((t) => [t, action]),
  );
