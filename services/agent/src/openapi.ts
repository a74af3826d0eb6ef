/**
 * OpenAPI description of the agent service, served at /openapi.json and rendered at /docs. The shapes come from the
 * joi schemas (`*\/*.schemas.ts`); only route-level facts (summaries, status codes) are written here.
 */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  parametersOf,
  refTo,
  withStandardResponses as responses,
  schemaComponents,
} from '@platform/http';

import {
  agent,
  agentBody,
  agentByName,
  agentCreated,
  agentList,
  agentListItem,
  listQuery as agentListQuery,
  agentMessage,
  agentPath,
  byNamePath,
  feature,
  singleTaskBody,
  singleTaskCreated,
  singleTaskPatch,
  UNPAGED_LIST_MAX,
} from './agents/agent.schemas';
import {
  chatCompletion,
  chatCompletionChunk,
  completionBody,
  completionHeaders,
  completionMessage,
  completionPath,
  completionTextPart,
  completionTool,
  completionToolCall,
  MAX_COMPLETION_MESSAGES,
  MAX_CONTENT_CHARS,
  MAX_CONTENT_PARTS,
  MAX_MESSAGE_TOOL_CALLS,
  MAX_REQUEST_TOOLS,
  toolCallDelta,
} from './completions/completion.schemas';
import {
  credential,
  createBody as credentialBody,
  credentialCreated,
  credentialList,
  listQuery as credentialListQuery,
  credentialPath,
  updateBody as credentialUpdate,
  credentialUpdated,
  openedCredential,
  typePath,
  typeProviderPath,
} from './credentials/credential.schemas';
import { MAX_RAG_IDS } from './inference/features/knowledge-base.config';
import {
  chatBody,
  chatResponse,
  sessionMessage,
  sessionMessages,
  sessionMessagesQuery,
  sessionPath,
  turnFinding,
  usage,
} from './inference/inference.schemas';
import {
  METADATA_LIMITS,
  session,
  sessionCreate,
  sessionHistory,
  sessionHistoryQuery,
  sessionIdPath,
  sessionList,
  sessionListQuery,
  sessionPatch,
} from './sessions/session.schemas';
import { failBody, runBody, task, taskAccepted, taskPath, taskState } from './tasks/task.schemas';
import { toolCallRecord } from './tools/tool-call.schemas';
import {
  bulkDeleteBody,
  bulkDeleteResult,
  executeBody,
  executeQuery,
  executeResult,
  toggleQuery,
  toolCatalog,
  toolCatalogItem,
  toolIdPath,
  toolInfo,
  toolList,
  toolListItem,
  listQuery as toolListQuery,
  createBody as toolSetBody,
  toolSetCreated,
  updateBody as toolUpdate,
} from './tools/tool.schemas';

type Json = Record<string, unknown>;

const shapes = schemaComponents({
  request: [
    feature,
    agentBody,
    singleTaskBody,
    singleTaskPatch,
    chatBody,
    completionBody,
    completionMessage,
    completionTextPart,
    completionTool,
    completionToolCall,
    toolSetBody,
    toolUpdate,
    bulkDeleteBody,
    executeBody,
    credentialBody,
    credentialUpdate,
    runBody,
    failBody,
    sessionCreate,
    sessionPatch,
  ],
  response: [
    agent,
    agentList,
    agentListItem,
    agentByName,
    agentCreated,
    singleTaskCreated,
    agentMessage,
    chatResponse,
    chatCompletion,
    chatCompletionChunk,
    toolCallDelta,
    sessionMessages,
    sessionMessage,
    usage,
    turnFinding,
    toolCallRecord,
    toolSetCreated,
    toolListItem,
    toolInfo,
    toolList,
    toolCatalog,
    toolCatalogItem,
    bulkDeleteResult,
    executeResult,
    credentialCreated,
    credential,
    credentialList,
    credentialUpdated,
    openedCredential,
    taskAccepted,
    task,
    taskState,
    session,
    sessionList,
    sessionHistory,
  ],
}) as Record<string, Json>;

const error = json({ $ref: '#/components/schemas/Error' });
const paging = parametersOf(agentListQuery, 'query');

// Agents
const agentId = parametersOf(agentPath, 'path');
const agentNotFound = notFoundResponse('Agent not found');
const updated = { description: 'Updated', ...json(refTo(agentMessage)) };
const featureCheck = `A KNOWLEDGE_BASE feature naming no rag id (config.rag_id, config.lyzr_rag.rag_id, config.agentic_rag[] or oneshot_rag[] entries), more than ${MAX_RAG_IDS}, or one the caller does not own → 422 at ["body","features",i,"config"]; the rag service unreachable → 503.`;

// Inference
const chat = { ...json(refTo(chatBody)) };
const providerError = { '502': { description: 'LLM provider error', ...error } };

// Chat completions (OpenAI's protocol)
const completionsDescription = [
  "OpenAI's chat-completions protocol over one of the caller's agents, so that the `openai` SDKs work with base URL `<host>/v3/inference/<agent_id>` and an API key as their key: the key is taken as `x-api-key` or `Authorization: Bearer <key>` (this route only). The agent decides its model (the request's `model` is echoed), prompt, tools and features (MEMORY, RAI, KNOWLEDGE_BASE), as on /v3/inference/chat/.",
  "Messages: the last user message is the turn's message; after it only the turn's tool rounds may follow (assistant messages with tool_calls, tool messages of their results), so the last message is a user or a tool message (else 422 at its role). Earlier system/developer messages are added after the agent's system prompt for this call; earlier user/assistant/tool messages are this call's history instead of stored memory (MEMORY reads the session's stored turns only when the request carries none). A tool message names the call it answers (tool_call_id of an earlier assistant message, else 422). RAI checks each supplied message as input. Only the answered turn is stored (its user message and the final answer, not a reply that asks for the caller's functions), in the session named by the `session_id` body field, else the `x-session-id` header, else a new session named by the completion id; the session comes back in the `x-session-id` header and `session_id`.",
  `temperature, top_p and max_tokens / max_completion_tokens apply to this call (max_tokens at most the agent's own). n > 1 → 422. tools: the caller's own functions, offered to the model beside the agent's tools (a name the agent's tools use → 422); the agent runs its own tools as on chat, and a reply asking for any of the caller's functions ends the run: the answer's message carries those tool_calls (content null unless the model wrote text too) with finish_reason "tool_calls", and the caller continues with tool messages of the results (calls of the agent's tools asked in the same reply are not run; the model asks again). tool_choice: auto (default), none (the caller's functions are not offered), required or a named function of tools (the turn's first model call must call a tool). parallel_tool_calls, user and model are accepted and not acted on; other OpenAI parameters (stop, seed, logprobs, penalties, ...) are dropped unread. Limits: ${MAX_COMPLETION_MESSAGES} messages, ${MAX_CONTENT_CHARS} characters per message or text part, ${MAX_CONTENT_PARTS} text parts per message (other part types → 422), ${MAX_REQUEST_TOOLS} tools, ${MAX_MESSAGE_TOOL_CALLS} tool calls per message.`,
  'stream: true → text/event-stream of ChatCompletionChunk events (the first with role "assistant"; one per model delta; the calls of the caller’s functions, when the model asks for them, as one chunk of tool_calls; one with the finish_reason; with stream_options.include_usage every chunk has usage null and a last chunk has no choices and the usage), then `data: [DONE]`. Errors before the first chunk are JSON with their status in the contract’s shape ({detail}), with OpenAI’s error object {message, type, param, code} beside it (every error answer of this route carries it, so that the SDKs’ exceptions say why); a failure after it is an `event: error` with `data: {"detail": ...}`. finish_reason is "stop", "length" when the provider cut the answer at the token limit, or "tool_calls".',
].join('\n\n');

// Tools
const toolId = parametersOf(toolIdPath, 'path');
const toolPaging = parametersOf(toolListQuery, 'query');
const toolNotFound = notFoundResponse('Tool not found');
const toolListResponse = { '200': { description: '{tools, total}', ...json(refTo(toolList)) } };
const toolInfoResponse = { '200': { description: 'Tool', ...json(refTo(toolInfo)) }, ...toolNotFound };

// Credentials
const credentialId = parametersOf(credentialPath, 'path');
const credentialPaging = parametersOf(credentialListQuery, 'query');
const credentialNotFound = notFoundResponse('Credential not found');
const credentialListResponse = {
  '200': { description: 'Credentials, secrets masked', ...json(refTo(credentialList)) },
};

// Tasks
const taskId = parametersOf(taskPath, 'path');
const taskNotFound = notFoundResponse('Task not found');
const internal =
  'Internal: only the worker calls it (x-internal-secret + x-on-behalf-of-user/-org); a valid body from an API key gets 404.';
const taskStateResponse = { description: 'The task after the call', ...json(refTo(taskState)) };
const submitTask = (operationId: string, alias = '') => ({
  summary: 'Run an agent on a message in the background',
  operationId,
  description: `${alias}The chat body. 202 once the task is stored and queued; the worker runs it. Tasks are kept 7 days.`,
  requestBody: chat,
  responses: responses({
    '202': { description: 'Accepted', ...json(refTo(taskAccepted)) },
    ...agentNotFound,
    '503': { description: 'The task queue or the database is unavailable; nothing was accepted', ...error },
  }),
});
const readTask = (operationId: string, alias?: string) => ({
  summary: "A task's state and, once completed, its result",
  operationId,
  ...(alias ? { description: alias } : {}),
  parameters: taskId,
  responses: responses({ '200': { description: 'The task', ...json(refTo(task)) }, ...taskNotFound }),
});

// Sessions
const sessionId = parametersOf(sessionIdPath, 'path');
const sessionNotFound = notFoundResponse(
  'Session not found (also for another owner’s, and for an id over 200 characters)',
);
const sessionAnswer = { description: 'The session', ...json(refTo(session)) };
const metadataBounds = `Metadata: at most ${METADATA_LIMITS.maxKeys} keys and ${METADATA_LIMITS.maxBytes} bytes as JSON (422).`;

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Agent service',
    version: '1.0.0',
    description: 'Agents, single-task templates, provider credentials, tools and inference.',
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: { ...errorSchemas, ...shapes },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/v3/agents/': {
      post: {
        summary: 'Create an agent',
        description: featureCheck,
        requestBody: json(refTo(agentBody)),
        responses: responses({ '201': { description: 'Created', ...json(refTo(agentCreated)) } }),
      },
      get: {
        summary: "List the caller's agents, newest first",
        description: `With skip or limit, one page (limit ≤ 100); with neither, every agent of the caller up to ${UNPAGED_LIST_MAX}.`,
        parameters: paging,
        responses: responses({ '200': { description: 'Agents', ...json(refTo(agentList)) } }),
      },
    },
    '/v3/agents/{agent_id}': {
      get: {
        summary: 'Get an agent',
        parameters: agentId,
        responses: responses({ '200': { description: 'Agent', ...json(refTo(agent)) }, ...agentNotFound }),
      },
      put: {
        summary: 'Replace an agent',
        description: featureCheck,
        parameters: agentId,
        requestBody: json(refTo(agentBody)),
        responses: responses({ '200': updated, ...agentNotFound }),
      },
      delete: {
        summary: 'Delete an agent',
        parameters: agentId,
        responses: responses({ '204': { description: 'Deleted' }, ...agentNotFound }),
      },
    },
    '/v3/agents/template/single-task': {
      post: {
        summary: 'Create a single-task agent',
        description: featureCheck,
        requestBody: json(refTo(singleTaskBody)),
        responses: responses({ '201': { description: 'Created', ...json(refTo(singleTaskCreated)) } }),
      },
    },
    '/v3/agents/template/single-task/{agent_id}': {
      put: {
        summary: 'Update a single-task agent: only the fields sent change (explicit null clears a nullable field)',
        parameters: agentId,
        requestBody: json(refTo(singleTaskPatch)),
        description: featureCheck,
        responses: responses({ '200': updated, ...agentNotFound }),
      },
    },
    '/v3/inference/chat/': {
      post: {
        summary: 'Run an agent on a message (memory per session_id)',
        description: 'Also callable by the worker with x-internal-secret + x-on-behalf-of-user/-org instead of a key.',
        requestBody: chat,
        responses: responses({
          '200': { description: 'The reply', ...json(refTo(chatResponse)) },
          ...agentNotFound,
          ...providerError,
        }),
      },
    },
    '/v3/inference/stream/': {
      post: {
        summary: 'Run an agent on a message and stream the answer as server-sent events',
        description:
          'One `data: {"content": "<delta>"}` event per model delta, then `data: [DONE]`. Errors before the first event are JSON with chat\'s statuses; a failure after it is an `event: error` with `data: {"detail": ...}`.',
        requestBody: chat,
        responses: responses({
          '200': {
            description: 'The answer as it is produced',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...agentNotFound,
          ...providerError,
        }),
      },
    },
    '/v3/inference/{agent_id}/chat/completions': {
      post: {
        summary: 'Run an agent with an OpenAI chat-completions request (plain or streamed)',
        operationId: 'createChatCompletion',
        description: completionsDescription,
        parameters: [...parametersOf(completionPath, 'path'), ...parametersOf(completionHeaders, 'header')],
        requestBody: json(refTo(completionBody)),
        responses: responses({
          '200': {
            description: 'A ChatCompletion, or with stream: true the ChatCompletionChunk events ending `data: [DONE]`',
            headers: { 'x-session-id': { description: 'The session of the turn', schema: { type: 'string' } } },
            content: {
              ...json(refTo(chatCompletion)).content,
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          ...agentNotFound,
          ...providerError,
        }),
      },
    },
    '/v3/inference/sessions/{session_id}/messages': {
      get: {
        summary: "The caller's stored messages of a session, newest first",
        parameters: [...parametersOf(sessionPath, 'path'), ...parametersOf(sessionMessagesQuery, 'query')],
        responses: responses({ '200': { description: 'Messages', ...json(refTo(sessionMessages)) } }),
      },
    },
    '/v3/sessions': {
      post: {
        summary: 'Create a session for one of the caller’s agents',
        description: `Chat calls then name its session_id. Sessions also come into being with their first chat turn, without this call. ${metadataBounds}`,
        requestBody: json(refTo(sessionCreate)),
        responses: responses({
          '201': { description: 'Created', ...json(refTo(session)) },
          ...agentNotFound,
          '409': { description: 'The caller has a session with that session_id (created, or chatted in)', ...error },
        }),
      },
      get: {
        summary: "List the caller's sessions, newest first",
        description: 'Sessions created here and those made by chat turns alike; agent_id keeps those of one agent.',
        parameters: parametersOf(sessionListQuery, 'query'),
        responses: responses({
          '200': { description: '{sessions, total, limit, offset}', ...json(refTo(sessionList)) },
        }),
      },
    },
    '/v3/sessions/{session_id}': {
      get: {
        summary: 'Get a session',
        description:
          'A session known only by its chat turns is described by its first message (agent, start; metadata {}).',
        parameters: sessionId,
        responses: responses({ '200': sessionAnswer, ...sessionNotFound }),
      },
      patch: {
        summary: "Change a session's metadata (JSON merge patch)",
        parameters: sessionId,
        requestBody: json(refTo(sessionPatch)),
        responses: responses({
          '200': sessionAnswer,
          ...sessionNotFound,
          '409': { description: 'Other changes kept landing first; nothing was changed', ...error },
        }),
      },
      delete: {
        summary: 'Delete a session and its stored messages (memory no longer sees them)',
        parameters: sessionId,
        responses: responses({ '204': { description: 'Deleted' }, ...sessionNotFound }),
      },
    },
    '/v3/sessions/{session_id}/messages': {
      get: {
        summary: "A session's stored messages, newest first",
        parameters: [...sessionId, ...parametersOf(sessionHistoryQuery, 'query')],
        responses: responses({
          '200': { description: '{messages, total, limit, offset}', ...json(refTo(sessionHistory)) },
          ...sessionNotFound,
        }),
      },
    },
    '/v3/tools/': {
      post: {
        summary: 'Import a tool set: one tool per operation',
        requestBody: json(refTo(toolSetBody)),
        responses: responses({
          '201': { description: 'One tool per operation', ...json(refTo(toolSetCreated)) },
          '409': { description: 'A set of that name exists', ...error },
        }),
      },
      get: { summary: "List the caller's tools", parameters: toolPaging, responses: responses(toolListResponse) },
    },
    '/v3/tools/all/user': {
      get: {
        summary: "List the caller's tools (same as GET /v3/tools/)",
        parameters: toolPaging,
        responses: responses(toolListResponse),
      },
    },
    '/v3/tools/bulk-delete': {
      post: {
        summary: "Delete several of the caller's tools",
        requestBody: json(refTo(bulkDeleteBody)),
        responses: responses({
          '200': { description: 'Deleted count and the ids not found', ...json(refTo(bulkDeleteResult)) },
        }),
      },
    },
    '/v3/providers/tools/all': {
      get: {
        summary: "The caller's tools as a provider catalog",
        parameters: toolPaging,
        responses: responses({ '200': { description: '{tools, total}', ...json(refTo(toolCatalog)) } }),
      },
    },
    '/v3/tools/openapi/{tool_id}': {
      get: {
        summary: 'Tool info: {id, name, openapi_schema, paths} and settings',
        parameters: toolId,
        responses: responses(toolInfoResponse),
      },
    },
    '/v3/tools/openapi/{tool_id}/execute': {
      post: {
        summary: 'Call one of the document’s operations',
        parameters: [...toolId, ...parametersOf(executeQuery, 'query')],
        requestBody: { required: false, ...json(refTo(executeBody)) },
        responses: responses({
          '200': { description: 'The remote answer, whatever its status', ...json(refTo(executeResult)) },
          ...toolNotFound,
          '409': { description: 'Tool is disabled', ...error },
          '502': { description: 'Unreachable, refused, timed out or too large', ...error },
        }),
      },
    },
    '/v3/tools/{tool_id}': {
      get: {
        summary: 'Same as /v3/tools/openapi/{tool_id}',
        parameters: toolId,
        responses: responses(toolInfoResponse),
      },
      put: {
        summary: 'Update the given fields',
        parameters: toolId,
        requestBody: json(refTo(toolUpdate)),
        responses: responses({ '200': updated, ...toolNotFound }),
      },
      patch: {
        summary: 'Enable or disable',
        parameters: [...toolId, ...parametersOf(toggleQuery, 'query')],
        responses: responses({ '200': { description: 'Toggled', ...json(refTo(agentMessage)) }, ...toolNotFound }),
      },
      delete: {
        summary: 'Delete a tool',
        parameters: toolId,
        responses: responses({ '204': { description: 'Deleted' }, ...toolNotFound }),
      },
    },
    '/v3/providers/credentials': {
      post: {
        summary: 'Store a provider credential (encrypted at rest)',
        requestBody: json(refTo(credentialBody)),
        responses: responses({ '201': { description: 'Created', ...json(refTo(credentialCreated)) } }),
      },
      get: {
        summary: "List the caller's credentials, secrets masked",
        parameters: credentialPaging,
        responses: responses(credentialListResponse),
      },
    },
    '/v3/providers/credentials/type/{type}': {
      get: {
        summary: "The caller's credentials of a type, secrets masked",
        parameters: [...parametersOf(typePath, 'path'), ...credentialPaging],
        responses: responses(credentialListResponse),
      },
    },
    '/v3/providers/credentials/user/{type}/{provider_id}': {
      get: {
        summary: "The caller's credentials of a type and provider, secrets masked",
        parameters: [...parametersOf(typeProviderPath, 'path'), ...credentialPaging],
        responses: responses(credentialListResponse),
      },
    },
    '/v3/providers/credentials/{credential_id}': {
      get: {
        summary: 'Get a credential, secret masked',
        parameters: credentialId,
        responses: responses({
          '200': { description: 'Credential', ...json(refTo(credential)) },
          ...credentialNotFound,
        }),
      },
      put: {
        summary: 'Update a credential (merge; masked values keep the stored secret)',
        parameters: credentialId,
        requestBody: json(refTo(credentialUpdate)),
        responses: responses({
          '200': { description: 'Updated', ...json(refTo(credentialUpdated)) },
          ...credentialNotFound,
        }),
      },
      delete: {
        summary: 'Delete a credential',
        parameters: credentialId,
        responses: responses({ '204': { description: 'Deleted' }, ...credentialNotFound }),
      },
    },
    '/v3/providers/credentials/{credential_id}/open': {
      post: {
        summary: "Open a credential: its key unsealed, for another service calling the provider on the owner's behalf",
        description:
          "Internal: only the platform's services call it (x-internal-secret + x-on-behalf-of-user/-org); an API key gets 404.",
        parameters: credentialId,
        responses: responses({
          '200': { description: 'The credential, key unsealed', ...json(refTo(openedCredential)) },
          ...credentialNotFound,
        }),
      },
    },
    '/v3/agents/utility/by-name/{name}': {
      get: {
        summary: "The caller's newest agent with exactly this name",
        parameters: parametersOf(byNamePath, 'path'),
        responses: responses({
          '200': { description: 'Its ids and name', ...json(refTo(agentByName)) },
          ...agentNotFound,
        }),
      },
    },
    '/v3/inference/task/': { post: submitTask('submitTask') },
    '/v3/inference/chat/task': { post: submitTask('submitTaskAlias', 'Same as POST /v3/inference/task/. ') },
    '/v3/inference/task/{task_id}': { get: readTask('getTask') },
    '/v3/inference/chat/task/{task_id}': { get: readTask('getTaskAlias', 'Same as GET /v3/inference/task/{task_id}.') },
    '/v3/inference/task/{task_id}/run': {
      post: {
        summary: 'Run one attempt of a task',
        description: internal,
        parameters: taskId,
        requestBody: { required: false, ...json(refTo(runBody)) },
        responses: responses({
          '200': taskStateResponse,
          ...taskNotFound,
          '502': { description: 'Transient failure; the task is queued again', ...error },
        }),
      },
    },
    '/v3/inference/task/{task_id}/fail': {
      post: {
        summary: 'End a task the queue gave up on',
        description: internal,
        parameters: taskId,
        requestBody: json(refTo(failBody)),
        responses: responses({ '200': taskStateResponse, ...taskNotFound }),
      },
    },
  },
};
