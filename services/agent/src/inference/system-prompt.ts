import type { AgentRecord } from '../agents/agent.types';

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
export function substituteVariables(template: string, variables: Record<string, unknown> | null | undefined): string {
  if (!variables) return template;
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(variables, name) ? asText(variables[name]) : whole,
  );
}

const nonEmpty = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

/**
 * The agent's system prompt. A general agent's is its `system_prompt`. A single-task agent's is composed from its
 * template fields: the role, then "Instructions:" and "Examples:" sections (after any `system_prompt` it carries).
 */
export function composeSystemPrompt(agent: AgentRecord, variables?: Record<string, unknown> | null): string {
  const parts =
    agent.kind === 'single_task'
      ? [
          agent.system_prompt,
          agent.agent_role,
          nonEmpty(agent.agent_instructions) ? `Instructions:\n${agent.agent_instructions}` : null,
          nonEmpty(agent.examples) ? `Examples:\n${agent.examples}` : null,
        ]
      : [agent.system_prompt];
  return substituteVariables(parts.filter(nonEmpty).join('\n\n'), variables);
}
