export { type OffloadSession, type OffloadSessionOptions, offloadSession } from './offload-session.js';
export type { OffloadSessionEvent } from './session-tools.js';
export {
  type ContextBudgetForOptions,
  contextBudgetFor,
  type LanguageModelFactory,
  type LanguageModelSession,
  type LanguageModelTextMessage,
  type LanguageModelTool,
} from './session-window.js';
