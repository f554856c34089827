import type { RunEvent } from './events.js';
import type { AssistantMessage, Message } from './messages.js';

export interface RunResult {
  status: 'completed' | 'blocked' | 'failed' | 'awaiting-approval' | 'max-steps';
  /** The final assistant message, when completed. */
  output?: AssistantMessage;
  /** Why, when blocked, failed, awaiting approval or out of steps. */
  reason?: string;
  /** The thread after the run. */
  messages: Message[];
  /** What happened during this run, resume or recover call, in order (not checkpointed). */
  events: RunEvent[];
}
