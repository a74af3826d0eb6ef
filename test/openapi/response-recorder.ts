/**
 * Jest setup (setupFilesAfterEach): every supertest response a test file gets from an express app is checked, after
 * the file's tests, against the OpenAPI document that app serves at /openapi.json (documented status, body schema);
 * the file fails on any mismatch. Requests to paths the document does not describe (ops endpoints, deliberately
 * unknown paths) and apps without a document are left alone.
 */
import type { Server } from 'node:http';
import request, { Test } from 'supertest';

import { createResponseChecker, sampleOf, type ResponseMismatch, type ResponseSample } from '@platform/testing';

import { SHARED_RESPONSES } from './shared-responses';

type Handler = (...args: unknown[]) => void;
const recorded = new Map<Handler, ResponseSample[]>();
let recording = true;

type Assert = (this: Test, resError: unknown, res: Parameters<typeof sampleOf>[0] | undefined, fn: unknown) => unknown;
const proto = Test.prototype as unknown as { assert: Assert };
const original = proto.assert;
proto.assert = function (this: Test, resError, res, fn) {
  const server = (this as unknown as { app?: unknown }).app;
  if (recording && res && server && typeof server === 'object' && typeof (server as Server).listeners === 'function') {
    const handler = (server as Server).listeners('request')[0] as Handler | undefined;
    if (handler) recorded.set(handler, [...(recorded.get(handler) ?? []), sampleOf(res)]);
  }
  return original.call(this, resError, res, fn);
};

/**
 * Stops checking this file's responses: for a file that breaks a guard on purpose (its answers carry what the
 * document forbids, and the file's own assertions are about that).
 */
export function ignoreThisFilesResponses(): void {
  recording = false;
  recorded.clear();
}

/**
 * Checks what was recorded since the last call against each app's own document, forgets it, and returns one line
 * per distinct mismatch.
 */
export async function checkRecorded(): Promise<string[]> {
  const wasRecording = recording;
  recording = false;
  const mismatches: ResponseMismatch[] = [];
  for (const [app, samples] of recorded) {
    const res = await request(app).get('/openapi.json');
    if (res.status !== 200 || typeof res.body?.paths !== 'object') continue;
    const checker = createResponseChecker(res.body, { sharedResponses: SHARED_RESPONSES });
    for (const sample of samples) {
      const m = checker.check(sample);
      if (m && !m.problem.startsWith('no documented operation')) mismatches.push(m);
    }
  }
  recorded.clear();
  recording = wasRecording;
  return [
    ...new Set(
      mismatches.map((m) => `${m.operation} → ${m.status}: ${m.problem.slice(0, 200)} (body: ${m.body.slice(0, 120)})`),
    ),
  ];
}

/** How many responses are waiting to be checked. */
export const recordedCount = () => [...recorded.values()].reduce((n, s) => n + s.length, 0);

afterAll(async () => {
  const distinct = await checkRecorded();
  recording = false;
  if (distinct.length > 0) throw new Error(`responses that do not match the OpenAPI document:\n${distinct.join('\n')}`);
});
