import {
  type Agent,
  CompositeBackend,
  createAgent,
  fileTools,
  IndexedDbCheckpointer,
  IndexedDbOffloadStore,
  MemoryBackend,
  type Message,
  type Middleware,
  type Model,
  openAICompatibleModel,
  ToolOutputOffload,
} from '../lib/index.js';
import { demoTools } from './demo-tools.js';
import { offlineModel } from './offline-model.js';

/** Small enough that the first scenario (≈ 0.6 + 2 + 0.8 MB) goes over it and evicts. */
export const maxTotalBytes = 3 * 1024 * 1024;
/** The 2.3 MB changelog is stored cut to this, so the demo shows a cut entry too. */
export const maxResultBytes = 2 * 1024 * 1024;

/** Shared by every agent the page builds, so the thread and the stored results outlive a model switch and a reload. */
export const store = new IndexedDbOffloadStore({ name: 'tool-output-offload-demo' });
export const checkpointer = new IndexedDbCheckpointer({ name: 'tool-output-offload-demo-threads' });
export const offload = new ToolOutputOffload({ maxTotalBytes, maxResultBytes, store });

export type ModelSettings = { kind: 'offline' } | { kind: 'openai'; baseUrl: string; model: string; apiKey: string };

const systemPrompt = [
  'You are the assistant of a small online shop, in a demo of tool-output-offload.',
  'search_logs searches one day of the service logs; fetch_page reads pages of docs.example.com (offline copies).',
  'Both can return megabytes: such results are stored as files and you are shown a preview. Read what you need with read_file or grep.',
  'Answer briefly, and say which stored results you read.',
].join('\n');

/** Only the reading file tools: the mount is read-only, and the demo keeps no other files. */
const readingTools = new Set(['read_file', 'ls', 'grep', 'glob']);

export interface Progress {
  /** The thread so far, before each model step (tool results of the step before included). */
  onStep(messages: readonly Message[]): void;
  /** A tool call started or ended. */
  onTool(name: string, running: boolean): void;
}

/** Reports the run's progress to the page: outermost, and writing no state. */
function progressReporter(progress: Progress): Middleware {
  return {
    name: 'DemoProgress',
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

function modelFor(settings: ModelSettings): Model {
  if (settings.kind === 'offline') return offlineModel();
  return openAICompatibleModel({
    baseUrl: settings.baseUrl,
    model: settings.model,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  });
}

/** The demo's agent: the chosen model, the demo tools plus file tools over the offload's mount. */
export function buildAgent(settings: ModelSettings, progress: Progress): Agent {
  const empty = new MemoryBackend();
  const files = fileTools(
    (context) => new CompositeBackend(empty, { [ToolOutputOffload.mount]: offload.backend(context.threadId) }),
  ).filter((t) => readingTools.has(t.name));
  return createAgent({
    model: modelFor(settings),
    tools: [...demoTools(), ...files],
    middleware: [progressReporter(progress), offload],
    systemPrompt,
    checkpointer,
    toolTimeoutMs: 60_000,
  });
}
