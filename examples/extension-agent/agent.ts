import { type Agent, createAgent, IndexedDbCheckpointer } from '../../lib/agent.js';
import { contextLedger } from '../../lib/context.js';
import { IndexedDbOffloadStore, ToolOutputOffload } from '../../lib/index.js';
import { chosenModel, type ModelSettings } from '../shared/model-choice.js';
import { type Progress, progressReporter } from '../shared/progress.js';
import { readingFileTools } from '../shared/reading-tools.js';
import type { AgentChrome } from './chrome.js';
import { offlineModel } from './offline-model.js';
import { checkpointsName, maxTotalBytes, storeName } from './settings.js';
import { tabTools } from './tab-tools.js';

// The agent of the extension, in its service worker: tools over the user's tabs, large results
// offloaded to the extension's IndexedDB, each thread checkpointed after every step.

const store = new IndexedDbOffloadStore({ name: storeName });
const checkpointer = new IndexedDbCheckpointer({ name: checkpointsName });
// The context ledger: each model request recorded, for the inspector's Context tab.
const offload = new ToolOutputOffload({ maxTotalBytes, store, ledger: contextLedger });

const systemPrompt = [
  'You are an assistant in a browser extension. list_tabs lists the open tabs; read_active_tab reads the text of the page the user is looking at.',
  'Pages can be hundreds of KB: such results are stored as files and you are shown a preview. Read what you need with read_file or grep.',
  'Answer briefly, and say which stored results you read.',
].join('\n');

const noProgress: Progress = { onStep() {}, onTool() {} };

/** An agent with the chosen model; `progress` hears of each step and tool call. */
export function buildAgent(chrome: AgentChrome, settings: ModelSettings, progress: Progress = noProgress): Agent {
  return createAgent({
    model: chosenModel(settings, offlineModel),
    tools: [...tabTools(chrome), ...readingFileTools(offload)],
    middleware: [progressReporter(progress), offload],
    systemPrompt,
    checkpointer,
    toolTimeoutMs: 60_000,
  });
}
