export { chatCompletion, type ChatMessage } from './chat';
export {
  createCredentialClient,
  type AgentServiceTarget,
  type CredentialClient,
  type OpenedCredential,
} from './credential.client';
export { openedCredential } from './credential.schemas';
export {
  DEFAULT_BASE_URL,
  openProviderCall,
  postProvider,
  type ProviderCall,
  type ProviderCallDeps,
} from './openai-protocol';
export { providerCallerEnv, type ProviderCallerConfig } from './env';
