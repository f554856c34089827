import type { EventEnvelope } from '../runtime/events.js';
import type { Message } from '../runtime/messages.js';
import type { HookContext, Middleware, StateKey } from '../runtime/middleware.js';
import type { Model, ModelReply, ModelRequest } from '../runtime/model.js';
import { checkInteger, checkOptionNames } from '../shared/checks.js';
import { errorMessage } from '../shared/errors.js';
import { type EstimateTokens, measureOf, type TokenMeasure } from '../tokens/token-measure.js';
import {
  emptySummarization,
  keepBoundary,
  messagesTokens,
  outgoing,
  readSummarization,
  type SummarizationState,
  summarizationKey,
  summaryMessage,
} from './select.js';
import { requestSummary, summarizerRequest } from './summarizer.js';

/** The details of the events Summarization emits into the run's events. */
type SummarizationEventDetails =
  | {
      type: 'summarized';
      step: number;
      /** Messages this summary newly covers. */
      coveredMessages: number;
      /** Estimated tokens of the messages the model would have been sent, and of what it is sent instead. */
      tokensBefore: number;
      tokensAfter: number;
    }
  | {
      type: 'summary-failed';
      step: number;
      /** Why: the summarizer's error, or 'aborted'. The request was sent unsummarized. */
      reason: string;
      aborted: boolean;
    };

/** A RunEvent of Summarization (`middleware: 'Summarization'`), in RunResult.events and createAgent's onEvent. */
export type SummarizationEvent = EventEnvelope & SummarizationEventDetails;

/** The options of `new Summarization(options)`. */
export interface SummarizationOptions {
  /** The model that writes the summaries; it gets no tools. */
  model: Model;
  /** Summarize when the messages a model call would send are over this many estimated tokens; at least 1. */
  triggerTokens: number;
  /**
   * How many of the latest messages are always sent as they are; at least 1.
   * @default 6
   */
  keepMessages?: number;
  /**
   * How tokens are counted for the trigger and each summarized message's cut. A throw or a count
   * that is not a finite number ≥ 0 counts that text at four characters a token, warned once.
   * @default estimateTokens (four characters a token)
   */
  estimateTokens?: EstimateTokens;
}

/**
 * Keeps long threads within a model's context: when the messages a model call would send are over
 * `triggerTokens`, the older ones (all but the last `keepMessages`, never splitting an assistant
 * message from its tool results) are replaced by a summary from `model`, merged with the previous
 * one. Only the outgoing request changes: the summary and the ids it covers live under
 * `Summarization.key`, and the thread's history stays whole.
 */
export class Summarization implements Middleware {
  static readonly key = summarizationKey;

  readonly name = 'Summarization';
  readonly model: Model;
  readonly triggerTokens: number;
  readonly keepMessages: number;
  readonly writes: Readonly<Record<string, StateKey>>;
  readonly #measure: TokenMeasure;

  constructor(options: SummarizationOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError('Summarization: options must be an object with model and triggerTokens');
    }
    checkOptionNames('Summarization', options, ['model', 'triggerTokens', 'keepMessages', 'estimateTokens']);
    if (typeof options.model !== 'function') throw new TypeError('Summarization: options.model must be a function');
    this.model = options.model;
    this.triggerTokens = checkInteger('Summarization: triggerTokens', options.triggerTokens, 1);
    this.keepMessages = checkInteger('Summarization: keepMessages', options.keepMessages ?? 6, 1);
    this.#measure = measureOf('Summarization', options.estimateTokens);
    const key: StateKey<SummarizationState> = { initial: emptySummarization(), onBlock: 'restore' };
    this.writes = Object.freeze({ [Summarization.key]: key as StateKey });
  }

  async wrapModelCall(
    request: ModelRequest,
    next: (request: ModelRequest) => Promise<ModelReply>,
    context: HookContext,
  ): Promise<ModelReply & { update?: Record<string, unknown> }> {
    const state = readSummarization(context.state[Summarization.key]);
    const current = outgoing(request.messages, state);
    const tokensBefore = messagesTokens(current.messages, this.#measure);
    const send = (messages: readonly Message[]) =>
      next(messages === request.messages ? request : { ...request, messages });
    if (tokensBefore <= this.triggerTokens) return send(current.messages);

    const boundary = keepBoundary(current.uncovered, this.keepMessages);
    if (boundary === 0) return send(current.messages);
    const older = current.uncovered.slice(0, boundary);
    const kept = current.uncovered.slice(boundary);

    let summary: string;
    try {
      const summarizing = summarizerRequest(state.summary, older, this.triggerTokens, this.#measure);
      summary = await requestSummary(this.model, summarizing, context.signal);
    } catch (error) {
      this.#failed(context, error);
      // An aborted run calls no model any more; the runtime ends it as 'aborted', history and key untouched.
      if (context.signal.aborted) throw error;
      return send(current.messages);
    }
    const messages = [summaryMessage(summary), ...kept];
    const value: SummarizationState = {
      summary,
      coveredMessageIds: [...state.coveredMessageIds, ...older.map((m) => m.id)],
    };
    context.emit({
      type: 'summarized',
      step: context.step,
      coveredMessages: older.length,
      tokensBefore,
      tokensAfter: messagesTokens(messages, this.#measure),
    } satisfies SummarizationEventDetails);
    const reply = await send(messages);
    return { ...reply, update: { [Summarization.key]: value } };
  }

  #failed(context: HookContext, error: unknown): void {
    const aborted = context.signal.aborted;
    const reason = aborted ? 'aborted' : errorMessage(error);
    const outcome = aborted ? 'the run was aborted' : 'the messages were sent unsummarized';
    console.warn(`Summarization: the summary failed (${reason}); ${outcome}`);
    const event: SummarizationEventDetails = { type: 'summary-failed', step: context.step, reason, aborted };
    context.emit(event);
  }
}
