import type { AgentInput } from '../agents/agent.types';
import { substituteVariables, type VariableMap } from './prompt-variables';

/** The agent fields a composed system prompt is built from, in the order they appear in it, with their labels. */
const SECTIONS = [
  ['agent_role', 'Role'],
  ['agent_goal', 'Goal'],
  ['agent_instructions', 'Instructions'],
  ['agent_context', 'Context'],
  ['agent_output', 'Expected output'],
  ['examples', 'Examples'],
] as const;

type SectionField = (typeof SECTIONS)[number][0];

/** What composing reads of an agent (a stored record has all of it). */
export type PromptFields = Pick<AgentInput, 'system_prompt' | SectionField>;

const nonEmpty = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

/**
 * The agent's system message, the same rule for general and single-task agents: its `system_prompt` when non-empty;
 * otherwise one labelled section ("Role:\n...", "Goal:\n...") per non-empty template field, in the order of SECTIONS,
 * blank-line separated. Public clients never send `system_prompt`, so without the sections their agents would reach
 * the model with no instructions at all. `{{name}}` placeholders are then filled from the variables. An agent with
 * none of these fields gets "" and the adapters send no system message: inventing one would put words in the
 * owner's mouth.
 */
export function composeSystemPrompt(agent: PromptFields, variables?: VariableMap | null): string {
  const text = nonEmpty(agent.system_prompt)
    ? agent.system_prompt
    : SECTIONS.flatMap(([field, label]) => {
        const value = agent[field];
        return nonEmpty(value) ? [`${label}:\n${value}`] : [];
      }).join('\n\n');
  return substituteVariables(text, variables);
}
