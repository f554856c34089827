// The comparison for the offload's evaluation time: an app that puts the same text with idb alone.
import { openDB } from 'idb';

const db = await openDB('raw-idb', 1, { upgrade: (db) => db.createObjectStore('texts') });
const content = Array.from({ length: 20_000 }, (_, i) => `line ${i}: GET /api/items/${i} 200`).join('\n');
await db.put('texts', content, 'chat-1/call-1');
document.body.textContent = content.slice(0, 100);
document.title = 'done';
