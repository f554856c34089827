// The same app as bench/bundle/offload, on the hand-written offload beside it.
import { openOffload } from './offload.js';

const offload = openOffload();
const content = Array.from({ length: 20_000 }, (_, i) => `line ${i}: GET /api/items/${i} 200`).join('\n');
const { text } = await offload.offloadResult({ threadId: 'chat-1', callId: 'call-1', toolName: 'search', content });
document.body.textContent = text;
document.title = 'done';
