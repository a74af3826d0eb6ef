/** Calls of the knowledge routes (train text, retrieve, list documents) and the vector count, on the fixture's app. */
import request from 'supertest';

import { k } from './knowledge-fixture';

export const trainText = (key: string, ragId: string, body: unknown) =>
  request(k.app)
    .post(`/v3/train/text/?rag_id=${ragId}`)
    .set('x-api-key', key)
    .send(body as object);
export const retrieve = (key: string, ragId: string, query: string, topK = 5) =>
  request(k.app)
    .get(`/v3/rag/${ragId}/retrieve/?query=${encodeURIComponent(query)}&top_k=${topK}`)
    .set('x-api-key', key);
export const list = (key: string, ragId: string) =>
  request(k.app).get(`/v3/rag/documents/${ragId}/`).set('x-api-key', key);
export const vectorCount = (ragId: string) => k.vectors.forProvider('lancedb').count(ragId);
