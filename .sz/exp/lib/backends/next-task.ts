// Long searches give the page back between slices of work: a new task lets input, rendering and
// timers run. Browsers: a MessageChannel message is a task without setTimeout's 4 ms clamp on nested
// timers (HTML: timer initialisation steps), but Chromium may run such messages back to back ahead
// of due timers, so every other yield is a timer, set from a message task (so never nested, never
// clamped). Node delivers port messages before its timers too; there setImmediate is the next task.

// Node's setImmediate, looked up so the library's types need no Node typings.
const setImmediateIfAny = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;

let channel: MessageChannel | undefined;
const waiting: Array<() => void> = [];
let viaTimer = false;

function post(resolve: () => void): void {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
  }
  waiting.push(resolve);
  channel.port2.postMessage(null);
}

/** Resolves in a later task of the event loop. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    viaTimer = !viaTimer;
    if (setImmediateIfAny) setImmediateIfAny(resolve);
    else if (typeof MessageChannel === 'function' && !viaTimer) post(resolve);
    else setTimeout(resolve, 0);
  });
}
