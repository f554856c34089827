import { ToolOutputOffload } from './exp/lib/index.ts';

const offload = new ToolOutputOffload();
const r = await offload.offloadResult({ threadId: 't', callId: 'c', toolName: 'x', content: 'hello' });
console.log(r);
