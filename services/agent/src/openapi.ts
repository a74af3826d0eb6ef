/**
 * OpenAPI description of the agent service, served at /openapi.json and rendered at /docs. The paths come from the
 * route tables (`*\/*.routes.ts`), the shapes from the joi schemas (`*\/*.schemas.ts`).
 */
import { schemaComponents, serviceDocument } from '@platform/http';

import { agentRoutes } from './agents/agent.routes';
import {
  agent,
  agentBody,
  agentByName,
  agentCreated,
  agentList,
  agentListItem,
  agentMessage,
  feature,
  singleTaskBody,
  singleTaskCreated,
  singleTaskPatch,
} from './agents/agent.schemas';
import { completionRoutes } from './completions/completion.routes';
import {
  chatCompletion,
  chatCompletionChunk,
  completionBody,
  completionMessage,
  completionTextPart,
  completionTool,
  completionToolCall,
  toolCallDelta,
} from './completions/completion.schemas';
import { credentialRoutes } from './credentials/credential.routes';
import {
  credential,
  createBody as credentialBody,
  credentialCreated,
  credentialList,
  updateBody as credentialUpdate,
  credentialUpdated,
  openedCredential,
} from './credentials/credential.schemas';
import { inferenceRoutes } from './inference/inference.routes';
import {
  chatBody,
  chatResponse,
  sessionMessage,
  sessionMessages,
  turnFinding,
  usage,
} from './inference/inference.schemas';
import { sessionRoutes } from './sessions/session.routes';
import { session, sessionCreate, sessionHistory, sessionList, sessionPatch } from './sessions/session.schemas';
import { taskRoutes } from './tasks/task.routes';
import { failBody, runBody, task, taskAccepted, taskState } from './tasks/task.schemas';
import { toolCallRecord } from './tools/tool-call.schemas';
import { toolRoutes } from './tools/tool.routes';
import {
  bulkDeleteBody,
  bulkDeleteResult,
  executeBody,
  executeResult,
  toolCatalog,
  toolCatalogItem,
  toolInfo,
  toolList,
  toolListItem,
  createBody as toolSetBody,
  toolSetCreated,
  updateBody as toolUpdate,
} from './tools/tool.schemas';

export const openapi = serviceDocument({
  title: 'Agent service',
  description: 'Agents, single-task templates, provider credentials, tools and inference.',
  schemas: schemaComponents({
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
  }),
  routes: [
    ...agentRoutes,
    ...inferenceRoutes,
    ...completionRoutes,
    ...sessionRoutes,
    ...toolRoutes,
    ...credentialRoutes,
    ...taskRoutes,
  ],
});
