// The extension's service worker: the agent runs here, the side panel talks to it over a port.
import { AgentRuns } from './agent-runs.js';
import { CHAT_PORT, parseRequest, type WorkerMessage } from './chat-protocol.js';
import { agentChrome, type ChromePort } from './chrome.js';
import { RunRegistry } from './run-registry.js';

const chrome = agentChrome('service worker');
const workerId = crypto.randomUUID().slice(0, 8);
/** Each open panel's port, and the thread it shows. */
const ports = new Map<ChromePort, string | undefined>();

function post(port: ChromePort, message: WorkerMessage): void {
  try {
    port.postMessage(message);
  } catch {
    ports.delete(port); // the panel went away
  }
}

const runs = new AgentRuns({
  chrome,
  registry: new RunRegistry(chrome.storage.local),
  workerId,
  publish(update) {
    for (const [port, threadId] of ports) if (threadId === update.threadId) post(port, update);
  },
});

const fromThisExtension = (port: ChromePort) =>
  port.name === CHAT_PORT &&
  port.sender?.id === chrome.runtime.id &&
  (port.sender.url ?? '').startsWith(`chrome-extension://${chrome.runtime.id}/`);

// Listeners are added in the first turn of the script: Chrome delivers the event that started the
// worker only to listeners present by then.
chrome.runtime.onConnect.addListener((port) => {
  if (!fromThisExtension(port)) return port.disconnect();
  ports.set(port, undefined);
  port.onDisconnect.addListener(() => ports.delete(port));
  port.onMessage.addListener(async (message) => {
    try {
      const request = parseRequest(message);
      if (request.type === 'open') {
        ports.set(port, request.threadId);
        post(port, await runs.view(request.threadId));
      } else if (request.type === 'send') {
        await runs.send(request.threadId, request.text);
      } else {
        await runs.continue(request.threadId);
      }
    } catch (error) {
      post(port, { type: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  });
});

// Listening makes Chrome start the worker with the browser, so a run the browser's exit interrupted
// continues then (the recovery below runs at every start, whatever started the worker).
chrome.runtime.onStartup.addListener(() => undefined);

chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch((error) => {
  console.warn('extension agent: the toolbar button cannot open the side panel', error);
});

// A run that a stopped worker left unfinished continues now, in this worker.
void runs.recoverUnfinished();
