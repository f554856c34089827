import type { Message, Middleware, ModelStreamPart } from '../../lib/agent.js';

export interface Progress {
  /** The thread so far, before each model step (tool results of the step before included). */
  onStep(messages: readonly Message[]): void;
  /** A tool call started or ended. */
  onTool(name: string, running: boolean): void;
  /** A part of the model's reply as it streams in (the built-in runtime's `onStream`). */
  onStream?(part: ModelStreamPart): void;
}

/** Reports a run's progress to whoever shows it: put it outermost; it writes no state. */
export function progressReporter(progress: Progress): Middleware {
  return {
    name: 'Progress',
    async wrapModelCall(request, next, context) {
      progress.onStep(context.messages);
      return next(request);
    },
    async wrapToolCall(request, next) {
      progress.onTool(request.call.name, true);
      try {
        return await next(request);
      } finally {
        progress.onTool(request.call.name, false);
      }
    },
  };
}
