import type { EmittedEvent, LoopEvent, RunStatus } from './events.js';
import type { AssistantMessage, Message } from './messages.js';

/** What a run, resume or recover call gives back; `Emitted`: the events its middleware and tools emit. */
export interface LoopResult<Emitted extends { type: string } = EmittedEvent> {
  /** How the call ended. */
  status: RunStatus;
  /** The final assistant message, when completed. */
  output?: AssistantMessage;
  /** Why, when blocked, failed, awaiting approval or out of steps. */
  reason?: string;
  /** The thread after the run. */
  messages: Message[];
  /** What happened during this run, resume or recover call, in order (not checkpointed). */
  events: LoopEvent<Emitted>[];
}
