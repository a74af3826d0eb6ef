/**
 * A new execution's document is built field by field (no mongoose document on the trigger path): it must be what the
 * schema makes of the same input, cast and defaulted, for every kind of input.
 */
import { mongoose, newObjectId } from '@platform/db';
import { executionDocument, executionModel, type NewExecution } from '@platform/scheduling';

const conn = mongoose.createConnection();
const Execution = executionModel(conn);
const now = new Date(Date.now());

/** What the schema made of an input before: a mongoose document, cast and defaulted, as a plain object. */
function viaSchema(input: NewExecution, id: string) {
  const { payload: _payload, id: _given, callback, ...fields } = input;
  const skipped = input.status === 'skipped';
  return new Execution({
    ...fields,
    payload_json: executionDocument(input, id, now).payload_json,
    _id: id,
    fire_key: input.fire_key ?? id,
    session_id: `execution-${id}`,
    status: input.status ?? 'queued',
    attempt: 0,
    triggered_at: now,
    ...(skipped ? { finished_at: now, duration_ms: 0 } : {}),
    ...(callback ? { cb: callback } : {}),
  }).toObject();
}

const base = { user_id: 'u1', org_id: 'o1', max_attempts: 3 };
const inputs: [string, NewExecution][] = [
  [
    'a webhook trigger',
    { ...base, kind: 'webhook', webhook_id: 'w1', agent_id: '7', payload: { a: [1, { $b: 'c' }] } },
  ],
  [
    'a cron fire with its key, time and callback',
    {
      ...base,
      kind: 'agent_schedule',
      schedule_id: 's1',
      payload: null,
      fire_key: 's1:1700000000000',
      scheduled_for: new Date(now.getTime() - 60_000),
      retry_delay_ms: 1500,
      callback: { url: 'https://example.com/cb', secret: 'sealed' },
    },
  ],
  [
    'a skipped fire',
    { ...base, kind: 'agent_schedule', schedule_id: 's2', payload: 'x', status: 'skipped', error_message: 'overlap' },
  ],
  [
    'a replay',
    { ...base, kind: 'http_schedule', schedule_id: 's3', payload: [], replay_of: newObjectId(), callback: null },
  ],
];

afterAll(() => conn.close());

it.each(inputs)('%s: the document built is the one the schema makes', (_name, input) => {
  const id = newObjectId();
  const built = executionDocument(input, id, now);
  expect(built).toEqual(viaSchema(input, id));
  expect(built._id).toBeInstanceOf(mongoose.Types.ObjectId);
  expect(built._id.toHexString()).toBe(id);
});
