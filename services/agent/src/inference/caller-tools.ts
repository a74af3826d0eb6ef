import { ValidationError } from '@platform/errors';

import type { Toolbox } from '../tools/agent-toolbox';
import type { ModelTool } from './inference.types';

/**
 * The agent's toolbox with the caller's own functions (chat completions' `tools`) offered beside its tools. The model
 * tells them apart by name, so a caller's function named like one of the agent's tools is refused (422 at its name).
 * The run never calls a caller's function: a reply that asks for one goes back to the caller (see runToolLoop).
 */
export function withCallerTools(toolbox: Toolbox, tools: ModelTool[] | undefined): Toolbox {
  if (!tools?.length) return toolbox;
  const own = new Set(toolbox.functions.map((f) => f.name));
  tools.forEach((t, i) => {
    if (own.has(t.name))
      throw ValidationError.field(
        ['body', 'tools', i, 'function', 'name'],
        `Tool name "${t.name}" is one of the agent's own tools: give the caller's function another name`,
        'tool_name_taken',
      );
  });
  return { functions: [...toolbox.functions, ...tools], run: (call) => toolbox.run(call) };
}
