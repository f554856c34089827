// Long searches give the page back between slices of work: a new task lets input, rendering and
// timers run. A MessageChannel message is a task without setTimeout's 4 ms clamp on nested timers
// (HTML: timer initialisation steps), so hundreds of slices cost milliseconds, not seconds. Node
// delivers port messages back to back before its timers, so there setImmediate is the next task.

let channel: MessageChannel | undefined;
const waiting: Array<() => void> = [];

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
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else if (typeof MessageChannel === 'function') post(resolve);
    else setTimeout(resolve, 0);
  });
}
