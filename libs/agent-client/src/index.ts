/** The agent service as other services call it: the agent id format, ownership checks, and inference runs. */
export { isAgentId } from './agent-id';
export { createAgentDirectory, type AgentDirectory, type AgentDirectoryOptions } from './directory';
export {
  createAgentRunner,
  type AgentRunner,
  type AgentRunnerOptions,
  type AgentRunRequest,
  type AgentRunResult,
} from './runner';
export {
  createTaskClient,
  type InferenceTaskJob,
  type TaskAttemptResult,
  type TaskClient,
  type TaskClientOptions,
} from './tasks';
