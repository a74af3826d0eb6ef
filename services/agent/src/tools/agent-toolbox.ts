import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { inSpan, recordError } from '@platform/tracing';

import { createArgumentValidator, type ArgumentValidator } from './argument-validator';
import { callFromArguments } from './remote-call';
import type { ModelTool, ToolCall, ToolCallRecord } from './tool-call.types';
import type { ToolService } from './tool.service';
import type { JsonObject, Owner, ToolRecord } from './tool.types';

/** A tool result longer than this is cut before it goes back to the model (and into the stored turn). */
export const MAX_TOOL_RESULT_CHARS = 20_000;
const MAX_FUNCTION_NAME = 64;

/** The tools of one agent run: what the model is offered, and how its calls run. */
export interface Toolbox {
  functions: ModelTool[];
  run(call: ToolCall): Promise<ToolCallRecord>;
}

const clip = (s: string) => (s.length > MAX_TOOL_RESULT_CHARS ? `${s.slice(0, MAX_TOOL_RESULT_CHARS)}…[truncated]` : s);

/** Function names the providers accept (`^[A-Za-z0-9_-]{1,64}$`), unique within the run. */
function functionNames(tools: ToolRecord[]): Map<string, ToolRecord> {
  const byName = new Map<string, ToolRecord>();
  for (const tool of tools) {
    const base = tool.tool_id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_FUNCTION_NAME);
    let name = base;
    for (let n = 2; byName.has(name); n++) name = `${base.slice(0, MAX_FUNCTION_NAME - String(n).length - 1)}_${n}`;
    byName.set(name, tool);
  }
  return byName;
}

function parseArguments(text: string): { value?: JsonObject; error?: string } {
  try {
    const v: unknown = JSON.parse(text.trim() === '' ? '{}' : text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return { value: v as JsonObject };
    return { error: 'arguments must be a JSON object' };
  } catch {
    return { error: 'arguments are not valid JSON' };
  }
}

/**
 * Builds the toolbox of an agent: its enabled tools (named by id or by set name) become functions. A call with
 * invalid arguments never reaches the remote API: the problems go back to the model as the call's result, as do
 * remote failures (timeouts, refusals), so that the model can correct itself or answer without the tool.
 */
export function createAgentToolboxes(deps: { tools: ToolService; logger: Logger; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return {
    async forAgent(owner: Owner, refs: string[]): Promise<Toolbox> {
      const enabled = (await deps.tools.findForAgent(owner, refs)).filter((t) => t.enabled);
      const byName = functionNames(enabled);
      // Built on the run's first tool call: a validator costs ~1 ms of CPU (a new Ajv with its formats), which every
      // run without a tool call (most webhook and cron runs) paid before; profiled under bench/trigger at ~6 % of the
      // agent service's CPU.
      let validator: ArgumentValidator | undefined;

      async function execute(
        tool: ToolRecord,
        args: JsonObject,
      ): Promise<{ status: number | null; error: string | null; result: string }> {
        const problems = (validator ??= createArgumentValidator()).check(tool.tool_id, tool.parameters, args);
        if (problems.length)
          return {
            status: null,
            error: 'invalid_arguments',
            result: JSON.stringify({ error: 'invalid arguments', details: problems }),
          };
        try {
          const res = await deps.tools.call(tool, callFromArguments(tool, args));
          return {
            status: res.status_code,
            error: null,
            result: JSON.stringify({ status_code: res.status_code, data: res.data }),
          };
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          const detail = typeof err.detail === 'string' ? err.detail : JSON.stringify(err.detail);
          return { status: null, error: detail, result: JSON.stringify({ error: detail }) };
        }
      }

      return {
        functions: [...byName].map(([name, t]) => ({ name, description: t.description, parameters: t.parameters })),
        run: (call) =>
          inSpan('tool call', { attributes: { 'gen_ai.tool.name': call.name } }, async (span) => {
            const record = await runCall(call);
            span.setAttributes({ 'tool.id': record.tool_id ?? '', 'tool.status_code': record.status_code ?? 0 });
            if (record.error !== null)
              recordError(span, Object.assign(new Error(record.error), { name: 'ToolCallFailed' }));
            return record;
          }),
      };

      async function runCall(call: ToolCall): Promise<ToolCallRecord> {
        const started = now();
        const tool = byName.get(call.name);
        const parsed = parseArguments(call.arguments);
        const outcome = !tool
          ? { status: null, error: 'unknown_tool', result: JSON.stringify({ error: `no tool named ${call.name}` }) }
          : parsed.error
            ? { status: null, error: 'invalid_arguments', result: JSON.stringify({ error: parsed.error }) }
            : await execute(tool, parsed.value!);
        deps.logger.info('tool call', {
          tool_id: tool?.tool_id ?? null,
          status: outcome.status,
          error: outcome.error,
          duration_ms: now() - started,
        });
        return {
          id: call.id,
          tool_id: tool?.tool_id ?? null,
          name: call.name,
          arguments: parsed.value ?? call.arguments,
          status_code: outcome.status,
          error: outcome.error,
          result: clip(outcome.result),
          duration_ms: now() - started,
        };
      }
    },
  };
}

export type AgentToolboxes = ReturnType<typeof createAgentToolboxes>;
