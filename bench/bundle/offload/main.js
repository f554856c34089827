// An app that only offloads: one ToolOutputOffload (its default store) and one offloadResult.
import { ToolOutputOffload } from 'tool-output-offload';

const offload = new ToolOutputOffload();
const content = Array.from({ length: 20_000 }, (_, i) => `line ${i}: GET /api/items/${i} 200`).join('\n');
const { text } = await offload.offloadResult({ threadId: 'chat-1', callId: 'call-1', toolName: 'search', content });
document.body.textContent = text;
document.title = 'done';
