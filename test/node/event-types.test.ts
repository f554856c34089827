// The events an app is told, as types: one OffloadEvent union for every way in, and the built-in
// agent's RunEvent typed with it. These assertions are checked by `tsc -p tsconfig.node.json`
// (`npm run typecheck`): a misspelled event type or field, or a way in with its own copy of the
// union, fails the typecheck; at run time they only check that the names are exported.
import { describe, expectTypeOf, it } from 'vitest';
import type { OffloadEvent as AiSdkOffloadEvent, WithOffloadOptions } from '../../adapters/ai-sdk/index.js';
import type {
  OffloadEvent as LangChainOffloadEvent,
  OffloadMiddlewareOptions,
} from '../../adapters/langchain/index.js';
import type { AgentOptions, createAgent, RunEvent, RunResult } from '../../lib/agent.js';
import type { OffloadEvent } from '../../lib/index.js';

type Of<T extends OffloadEvent['type']> = Extract<OffloadEvent, { type: T }>;

describe('OffloadEvent', () => {
  it('is one discriminated union, with the fields each event carries', () => {
    expectTypeOf<OffloadEvent['type']>().toEqualTypeOf<
      | 'offloaded'
      | 'offload-failed'
      | 'store-unavailable'
      | 'summarized-drop'
      | 'context-cleared'
      | 'context-over-budget'
      | 'context-calibrated'
      | 'context-not-fitted'
    >();
    expectTypeOf<Of<'context-not-fitted'>>().toEqualTypeOf<{
      type: 'context-not-fitted';
      threadId: string;
      fix: string;
    }>();
    expectTypeOf<Of<'offloaded'>>().toMatchTypeOf<{
      threadId: string;
      toolName: string;
      toolCallId: string;
      path: string;
      bytes?: number;
      truncated?: boolean;
    }>();
    expectTypeOf<Of<'offload-failed'>>().toMatchTypeOf<{ threadId: string; toolName: string; why: string }>();
    expectTypeOf<Of<'store-unavailable'>>().toMatchTypeOf<{ threadId: string; why: string }>();
    expectTypeOf<Of<'summarized-drop'>>().toMatchTypeOf<{ threadId: string; keys: string[] }>();
    expectTypeOf<Of<'context-cleared'>>().toMatchTypeOf<{
      threadId: string;
      paths: string[];
      tokensBefore: number;
      tokensAfter: number;
    }>();
    expectTypeOf<Of<'context-over-budget'>>().toMatchTypeOf<{ threadId: string; tokens: number; budget: number }>();
    expectTypeOf<Of<'context-calibrated'>>().toEqualTypeOf<{
      type: 'context-calibrated';
      threadId: string;
      factor: number;
      effectiveBudget: number;
    }>();
    // @ts-expect-error a misspelled event type is no OffloadEvent
    const misspelled: OffloadEvent['type'] = 'ofloaded';
    void misspelled;
    // @ts-expect-error an event needs its own fields (offloaded: the tool call and the path)
    const incomplete: OffloadEvent = { type: 'offloaded', threadId: 't' };
    void incomplete;
  });

  it('is the same type through the AI SDK and LangChain entries, and what their onEvent is told', () => {
    expectTypeOf<AiSdkOffloadEvent>().toEqualTypeOf<OffloadEvent>();
    expectTypeOf<LangChainOffloadEvent>().toEqualTypeOf<OffloadEvent>();
    expectTypeOf<Parameters<NonNullable<WithOffloadOptions['onEvent']>>[0]>().toEqualTypeOf<OffloadEvent>();
    expectTypeOf<Parameters<NonNullable<OffloadMiddlewareOptions['onEvent']>>[0]>().toEqualTypeOf<OffloadEvent>();
  });

  it('narrows on type in an adapter listener', () => {
    const onEvent: NonNullable<WithOffloadOptions['onEvent']> = (event) => {
      if (event.type === 'offloaded') expectTypeOf(event.path).toEqualTypeOf<string>();
      if (event.type === 'context-cleared') expectTypeOf(event.paths).toEqualTypeOf<string[]>();
      // @ts-expect-error no event of the offload is named 'offload-fail'
      if (event.type === 'offload-fail') return;
    };
    void onEvent;
  });
});

describe("the built-in agent's RunEvent", () => {
  it('includes every OffloadEvent, attributed by the runtime, and narrows on type', () => {
    type Offloaded = Extract<RunEvent, { type: 'offloaded' }>;
    expectTypeOf<Offloaded>().toMatchTypeOf<Of<'offloaded'> & { middleware?: string; at: number }>();
    expectTypeOf<Extract<RunEvent, OffloadEvent>['type']>().toEqualTypeOf<OffloadEvent['type']>();
    const onEvent: NonNullable<AgentOptions['onEvent']> = (event) => {
      if (event.type === 'context-over-budget') expectTypeOf(event.budget).toEqualTypeOf<number>();
      if (event.type === 'tool-call') expectTypeOf(event.idempotencyKey).toEqualTypeOf<string>();
      if (event.type === 'summarized') expectTypeOf(event.coveredMessages).toEqualTypeOf<number>();
      // @ts-expect-error no event of a built-in agent's run is named 'store-unavailble'
      if (event.type === 'store-unavailble') return;
    };
    void onEvent;
    expectTypeOf<RunResult['events'][number]>().toEqualTypeOf<RunEvent>();
  });

  it("adds the app's own events when it names them", () => {
    type Mine = { type: 'cache-hit'; key: string };
    type Agent = ReturnType<typeof createAgent<Mine>>;
    type Events = Awaited<ReturnType<Agent['run']>>['events'][number];
    expectTypeOf<Extract<Events, { type: 'cache-hit' }>['key']>().toEqualTypeOf<string>();
    expectTypeOf<Extract<Events, { type: 'offloaded' }>['path']>().toEqualTypeOf<string>();
    expectTypeOf<Events>().toEqualTypeOf<RunEvent<Mine>>();
  });
});
