import type { Owner } from '@platform/db';
import type { OutboundClient } from '@platform/outbound';

import type { CredentialClient } from './credential.client';
import type { OpenedCredential } from './credential.schemas.types';

/** Where a credential without a base_url points (OpenAI's API). */
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** A provider speaking the OpenAI protocol: an opened credential and the model of the RAG configuration. */
export interface ProviderCall {
  outbound: OutboundClient;
  credential: OpenedCredential;
  model: string;
  timeoutMs: number;
}

/** Largest provider answer read (an embeddings batch of 64 × 3072 floats as JSON stays well below it). */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** POSTs `body` to `${base_url}${path}` with the key as Bearer; the parsed JSON of a 2xx, else an error (never the key). */
export async function postProvider(call: ProviderCall, path: string, body: Record<string, unknown>): Promise<unknown> {
  const base = (call.credential.base_url || DEFAULT_BASE_URL).replace(/\/+$/, '');
  const res = await call.outbound.request({
    url: `${base}${path}`,
    method: 'POST',
    // A credential without a key (a local server's) sends no Authorization header.
    headers: {
      ...(call.credential.api_key === null ? {} : { authorization: `Bearer ${call.credential.api_key}` }),
      'content-type': 'application/json',
    },
    body: { model: call.model, ...body },
    timeoutMs: call.timeoutMs,
    maxResponseBytes: MAX_RESPONSE_BYTES,
    maxRedirects: 0,
  });
  if (res.status < 200 || res.status >= 300) throw new Error(`provider answered HTTP ${res.status}`);
  if (typeof res.data !== 'object' || res.data === null) throw new Error('provider answered no JSON');
  return res.data;
}

/** What opening a provider call needs: the credential client and the outbound client with its time limit. */
export interface ProviderCallDeps {
  credentials: CredentialClient;
  /** The client for provider calls: the address guard with the operator's allow-list. */
  outbound: OutboundClient;
  /** Time limit of one provider call. */
  timeoutMs: number;
}

/** The call of an owner's credential with a model; null when either is missing or the credential does not open. */
export async function openProviderCall(
  deps: ProviderCallDeps,
  owner: Owner,
  credentialId: string | null | undefined,
  model: string | null | undefined,
): Promise<ProviderCall | null> {
  const credential = credentialId ? await deps.credentials.open(owner, credentialId) : null;
  return credential && model ? { outbound: deps.outbound, credential, model, timeoutMs: deps.timeoutMs } : null;
}
