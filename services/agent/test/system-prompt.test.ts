import { toVariableMap } from '../src/inference/prompt-variables';
import { composeSystemPrompt } from '../src/inference/system-prompt';

const fields = {
  agent_role: 'You help {{company}}.',
  agent_goal: 'Close tickets.',
  agent_instructions: 'Be kind.',
  agent_context: 'Customers are {{segment}}.',
  agent_output: 'One paragraph.',
  examples: 'Q: hi\nA: hello',
};

describe('composeSystemPrompt', () => {
  it('builds one labelled section per field, in a fixed order, blank-line separated, placeholders filled', () => {
    const reversed = Object.fromEntries(Object.entries(fields).reverse());
    expect(composeSystemPrompt(reversed, { company: 'Acme', segment: 'shops' })).toBe(
      [
        'Role:\nYou help Acme.',
        'Goal:\nClose tickets.',
        'Instructions:\nBe kind.',
        'Context:\nCustomers are shops.',
        'Expected output:\nOne paragraph.',
        'Examples:\nQ: hi\nA: hello',
      ].join('\n\n'),
    );
  });

  it('leaves out empty, blank, null and missing fields', () => {
    expect(
      composeSystemPrompt({ agent_role: '', agent_goal: ' \n', agent_instructions: null, agent_output: 'JSON.' }),
    ).toBe('Expected output:\nJSON.');
  });

  it('a non-empty system_prompt is the whole message; a blank one is ignored', () => {
    expect(composeSystemPrompt({ ...fields, system_prompt: 'You are {{company}}.' }, { company: 'Acme' })).toBe(
      'You are Acme.',
    );
    expect(composeSystemPrompt({ agent_goal: 'Close tickets.', system_prompt: '   ' })).toBe('Goal:\nClose tickets.');
  });

  it('nothing to say → "" (the adapters then send no system message)', () => {
    expect(composeSystemPrompt({})).toBe('');
    expect(composeSystemPrompt({ system_prompt: null, agent_role: null, examples: '' }, { a: 1 })).toBe('');
  });

  it('a value that looks like a placeholder is not expanded again, and labels are not placeholders', () => {
    expect(composeSystemPrompt({ agent_role: '{{a}}', agent_goal: '{{b}}' }, { a: '{{b}}', b: 'B' })).toBe(
      'Role:\n{{b}}\n\nGoal:\nB',
    );
  });
});

describe('toVariableMap', () => {
  it('keeps an object as it is; null and undefined are no variables', () => {
    const map = { a: 1, b: { c: 'd' } };
    expect(toVariableMap(map)).toBe(map);
    expect(toVariableMap(null)).toBeNull();
    expect(toVariableMap(undefined)).toBeNull();
  });

  it('turns a list of {name, value} / {key, value} items into a map; the last of a repeated name wins', () => {
    expect(
      toVariableMap([
        { name: 'a', value: 1 },
        { key: 'b', value: null },
        { name: 'a', value: 2 },
      ]),
    ).toEqual({ a: 2, b: null });
  });

  it('an item without a value is no variable, so its placeholder stays as written', () => {
    const map = toVariableMap([{ name: 'a' }, { name: 'b', value: '' }]);
    expect(map).toEqual({ b: '' });
    expect(composeSystemPrompt({ agent_role: '{{a}}|{{b}}' }, map)).toBe('Role:\n{{a}}|');
  });

  it('a variable named __proto__ stays a variable', () => {
    const map = toVariableMap([
      { name: '__proto__', value: 'p' },
      { name: 'x', value: 'y' },
    ]);
    expect(Object.keys(map ?? {})).toEqual(['__proto__', 'x']);
    expect(Object.getPrototypeOf(map)).toBeNull();
    expect(composeSystemPrompt({ agent_role: '{{x}}{{toString}}' }, map)).toBe('Role:\ny{{toString}}');
  });
});
