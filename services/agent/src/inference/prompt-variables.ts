/** Values for `{{name}}` placeholders, by name: the one shape the rest of inference sees. */
export type VariableMap = Record<string, unknown>;

/** One variable as list-form clients send it: `{name, value}`, or `{key, value}` as key/value editors produce. */
export interface VariableItem {
  name?: string;
  key?: string;
  value?: unknown;
}

/**
 * `system_prompt_variables` in either form public clients send: an object of name → value, or a list of
 * `{name, value}` items. A list becomes a map (a repeated name: the last one wins; an item without `value` is no
 * variable, so its placeholder stays as written). Validation has already checked the shapes.
 */
export function toVariableMap(input: VariableMap | VariableItem[] | null | undefined): VariableMap | null {
  if (input === null || input === undefined) return null;
  if (!Array.isArray(input)) return input;
  // No prototype: a variable named `__proto__` must stay a variable, not replace the map's prototype.
  const map = Object.create(null) as VariableMap;
  for (const item of input) {
    const name = item.name ?? item.key;
    if (name !== undefined && item.value !== undefined) map[name] = item.value;
  }
  return map;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * Replaces `{{name}}` (spaces inside the braces allowed) with `variables[name]`. Single braces are left alone, since
 * prompts often hold JSON examples; a placeholder with no variable stays as written; values are inserted once and
 * never expanded again, so a variable cannot pull in another. Strings go in as they are, other values as JSON.
 */
export function substituteVariables(template: string, variables: VariableMap | null | undefined): string {
  if (!variables) return template;
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(variables, name) ? asText(variables[name]) : whole,
  );
}
