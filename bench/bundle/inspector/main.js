// The offload app of bench/bundle/offload with the inspector mounted over its store. Built twice by
// bench/bundle/measure.mjs, with INSPECTOR false (the offload app as it is) and true
// (mountInspector added): the difference is what the inspector costs, Preact included.
import { ToolOutputOffload } from 'tool-output-offload';
import { mountInspector } from 'tool-output-offload/inspector';

const offload = new ToolOutputOffload();
const content = Array.from({ length: 20_000 }, (_, i) => `line ${i}: GET /api/items/${i} 200`).join('\n');
const { text } = await offload.offloadResult({ threadId: 'chat-1', callId: 'call-1', toolName: 'search', content });
// INSPECTOR: a constant the build defines (bench/bundle/measure.mjs)
if (INSPECTOR) mountInspector(document.body, { store: offload.store }, { mode: 'floating' });
document.body.append(text.slice(0, 80));
document.title = 'done';
