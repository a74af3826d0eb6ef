/** One call per sessions v3 route (`/v3/sessions`), on the app of sessions-fixture.ts, and a chat turn. */
import request from 'supertest';

import { f } from './sessions-fixture';

export const api = () => request(f.t.app);
export const create = (key: string, body: unknown) =>
  api()
    .post('/v3/sessions')
    .set('x-api-key', key)
    .send(body as object);
export const getOne = (key: string, id: string) =>
  api()
    .get(`/v3/sessions/${encodeURIComponent(id)}`)
    .set('x-api-key', key);
export const patchOne = (key: string, id: string, body: unknown) =>
  api()
    .patch(`/v3/sessions/${encodeURIComponent(id)}`)
    .set('x-api-key', key)
    .send(body as object);
export const deleteOne = (key: string, id: string) =>
  api()
    .delete(`/v3/sessions/${encodeURIComponent(id)}`)
    .set('x-api-key', key);
export const list = (key: string, query = '') => api().get(`/v3/sessions${query}`).set('x-api-key', key);
export const messages = (key: string, id: string, query = '') =>
  api()
    .get(`/v3/sessions/${encodeURIComponent(id)}/messages${query}`)
    .set('x-api-key', key);
/** A chat turn of `key` with `agent` in `session`; it must succeed. */
export const say = async (key: string, agent: string, session: string, message: string) => {
  const res = await f.chat(key, { agent_id: agent, session_id: session, message });
  expect(res.status).toBe(200);
};
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const notFound = { detail: 'Session not found' };
