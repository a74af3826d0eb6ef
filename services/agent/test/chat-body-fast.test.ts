import { validate } from '@platform/http';

import { chatBody, chatBodyFast } from '../src/inference/inference.schemas';

/** What joi makes of a body: its value, or `error` when it refuses it. */
function byJoi(body: unknown): unknown {
  try {
    return validate(chatBody, body, 'body');
  } catch {
    return 'error';
  }
}

const agents: unknown[] = [
  '7',
  7,
  '12345678901234567890123456789012',
  '123456789012345678901234567890123',
  ' 7',
  '7 ',
  '\t7',
  '',
  '  ',
  0,
  -1,
  1.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  'abc',
  true,
  null,
  [],
  {},
  undefined,
];
const sessions: unknown[] = ['s', 'x'.repeat(200), 'x'.repeat(201), '', ' ', 5, null, undefined];
const messages: unknown[] = ['hi', '', 'x'.repeat(1_048_576), 'x'.repeat(1_048_577), 5, null, {}, undefined];
const extras: Record<string, unknown>[] = [
  {},
  { user_id: 'u', extra: { deep: [1, 2] } },
  { system_prompt_variables: { name: 'x' } },
  { system_prompt_variables: null },
  { system_prompt_variables: '{"a":"b"}' },
];

describe('chatBodyFast', () => {
  test('gives what chatBody gives for every body it vouches for, and vouches for the worker’s bodies', () => {
    let vouched = 0;
    let cases = 0;
    for (const agent_id of agents)
      for (const session_id of sessions)
        for (const message of messages)
          for (const extra of extras) {
            const body: Record<string, unknown> = { ...extra };
            if (agent_id !== undefined) body.agent_id = agent_id;
            if (session_id !== undefined) body.session_id = session_id;
            if (message !== undefined) body.message = message;
            const fast = chatBodyFast(body);
            cases++;
            if (fast === undefined) continue;
            vouched++;
            expect(fast).toEqual(byJoi(body));
          }
    expect(cases).toBe(agents.length * sessions.length * messages.length * extras.length);
    // The worker's body: agent id, its session, a message (with fields the route drops).
    expect(chatBodyFast({ agent_id: '42', session_id: 'execution-abc', message: '{"a":1}', user_id: 'u' })).toEqual({
      agent_id: '42',
      session_id: 'execution-abc',
      message: '{"a":1}',
    });
    expect(vouched).toBeGreaterThan(50);
  });

  test('leaves what is not an object to the schema', () => {
    for (const body of [null, undefined, [], 'text', 5, [{ agent_id: '1', session_id: 's', message: 'm' }]])
      expect(chatBodyFast(body)).toBeUndefined();
  });

  test('everything joi refuses, it leaves to joi (whose 422 names the field)', () => {
    for (const body of [
      { agent_id: ' 7', session_id: 's', message: 'm' },
      { agent_id: 7, session_id: '', message: 'm' },
      { agent_id: 7, session_id: 's' },
      { agent_id: 1.5, session_id: 's', message: 'm' },
    ]) {
      expect(byJoi(body)).toBe('error');
      expect(chatBodyFast(body)).toBeUndefined();
    }
  });
});
