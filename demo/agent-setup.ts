import { chosenModel, type ModelSettings } from '../examples/shared/model-choice.js';
import { type Progress, progressReporter } from '../examples/shared/progress.js';
import { readingFileTools } from '../examples/shared/reading-tools.js';
import { type Agent, createAgent, IndexedDbCheckpointer } from '../lib/agent.js';
import { contextLedger } from '../lib/context.js';
import { IndexedDbOffloadStore, ToolOutputOffload, type ToolOutputOffloadOptions } from '../lib/index.js';
import { aiSdkRuntime } from './ai-sdk-runtime.js';
import { demoTools } from './demo-tools.js';
import { langChainRuntime } from './langchain-runtime.js';
import { offlineModel } from './offline-model.js';

/** Small enough that the first scenario (≈ 0.6 + 2 + 0.8 MB) goes over it and evicts. */
const maxTotalBytes = 3 * 1024 * 1024;
/** The 2.3 MB changelog is stored cut to this, so the demo shows a cut entry too. */
const maxResultBytes = 2 * 1024 * 1024;

/** Shared by every agent the page builds, so the thread and the stored results outlive a model switch and a reload. */
export const store = new IndexedDbOffloadStore({ name: 'tool-output-offload-demo' });
export const checkpointer = new IndexedDbCheckpointer({ name: 'tool-output-offload-demo-threads' });

/** The budget switch's model: an on-device model's window, as Chrome's built-in one (about 9,216 tokens). */
export const SMALL_MODEL_TOKENS = 8000;

/**
 * What the demo's offloads share; the budget switch picks one with a context budget or one without.
 * Both record each model request in the context ledger, which the inspector's Context tab draws.
 */
const offloadOptions: ToolOutputOffloadOptions = { maxTotalBytes, maxResultBytes, store, ledger: contextLedger };
const offloads = {
  whole: new ToolOutputOffload(offloadOptions),
  // Every model request fitted to SMALL_MODEL_TOKENS, the oldest results cleared first (C1–C7).
  small: new ToolOutputOffload({ ...offloadOptions, contextBudget: { maxRequestTokens: SMALL_MODEL_TOKENS } }),
};

/** The budget switch: off, the model gets every request whole; on, each is fitted to SMALL_MODEL_TOKENS. */
export type Budget = keyof typeof offloads;

export type { ModelSettings };

const systemPrompt = [
  'You are the assistant of a small online shop, in a demo of tool-output-offload.',
  'search_logs searches one day of the service logs; fetch_page reads pages of docs.example.com (offline copies).',
  'Both can return megabytes: such results are stored as files and you are shown a preview. Read what you need with read_file or grep.',
  'Answer briefly, and say which stored results you read.',
].join('\n');

/** What the page needs of a runtime: run a message, continue an interrupted run, show a thread. */
type DemoAgent = Pick<Agent, 'run' | 'recover' | 'messages'>;

/**
 * The runtimes the demo can switch between, each running the same scripted model, tools and store.
 */
export const runtimes = {
  'built-in': { label: 'built-in (createAgent)', build: buildAgent },
  // The AI SDK's generateText with `withOffload`.
  'ai-sdk': {
    label: 'Vercel AI SDK (withOffload)',
    build: (settings, progress, budget) => aiSdkRuntime(frameworkOptions(settings, progress, budget)),
  },
  // LangChain.js's createAgent with `offloadMiddleware`.
  langchain: {
    label: 'LangChain.js (offloadMiddleware)',
    build: (settings, progress, budget) => langChainRuntime(frameworkOptions(settings, progress, budget)),
  },
} satisfies Record<
  string,
  { label: string; build(settings: ModelSettings, progress: Progress, budget: Budget): DemoAgent }
>;

export type RuntimeName = keyof typeof runtimes;

export function isRuntimeName(name: unknown): name is RuntimeName {
  return typeof name === 'string' && Object.hasOwn(runtimes, name);
}

/**
 * What the framework runtimes are given: the same model, tools, store and system prompt as the
 * built-in one; each keeps its thread history in the same checkpointer database, in its own form.
 */
function frameworkOptions(settings: ModelSettings, progress: Progress, budget: Budget) {
  return {
    model: chosenModel(settings, offlineModel),
    tools: demoTools(),
    offload: offloads[budget],
    systemPrompt,
    histories: checkpointer,
    progress,
  };
}

/** The demo's agent: the chosen model, the demo tools plus file tools over the offload's mount. */
function buildAgent(settings: ModelSettings, progress: Progress, budget: Budget): Agent {
  const offload = offloads[budget];
  return createAgent({
    model: chosenModel(settings, offlineModel),
    tools: [...demoTools(), ...readingFileTools(offload)],
    middleware: [progressReporter(progress), offload],
    systemPrompt,
    checkpointer,
    toolTimeoutMs: 60_000,
    onStream: ({ part }) => progress.onStream?.(part),
  });
}
