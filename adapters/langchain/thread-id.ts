import type { Runtime } from 'langchain';

/** How the middleware finds the thread a run belongs to; every stored result is kept per thread. */
export type ThreadIdOf = (runtime: Runtime<unknown>) => string;

const what = (value: unknown): string =>
  typeof value === 'string' ? `an empty string` : value === null ? 'null' : `a ${typeof value}`;

/**
 * The run's thread: the app's `threadId` option when given, else LangGraph's
 * `configurable.thread_id`. With neither, a clear error: a shared default thread would let one
 * chat read (and evict) another's stored results.
 */
export function resolveThreadId(runtime: Runtime<unknown>, threadIdOf: ThreadIdOf | undefined): string {
  if (threadIdOf) {
    const chosen = threadIdOf(runtime);
    if (typeof chosen === 'string' && chosen !== '') return chosen;
    throw new TypeError(
      `offloadMiddleware: the threadId option returned ${what(chosen)}; it must return a non-empty string`,
    );
  }
  const configured = runtime.configurable?.thread_id;
  if (typeof configured === 'string' && configured !== '') return configured;
  if (typeof configured === 'number' && Number.isFinite(configured)) return String(configured);
  if (configured === undefined) {
    throw new Error(
      'offloadMiddleware: no thread id for this run. Run the agent with { configurable: { thread_id } } ' +
        '(as a checkpointer needs anyway), or pass offloadMiddleware(offload, { threadId: (runtime) => … })',
    );
  }
  throw new TypeError(
    `offloadMiddleware: configurable.thread_id is ${what(configured)}; it must be a non-empty string`,
  );
}
