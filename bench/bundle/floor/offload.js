// The hand-written floor (bench/README.md): what an app can write itself over idb, in 52 lines (issue
// 21 measured one of 54). A result over the threshold is stored under a path and replaced by a header
// and its first lines; a thread keeps at most maxTotalBytes, oldest evicted first; readLines reads back.
import { openDB } from 'idb';

export function openOffload({ name = 'offload-floor', thresholdChars = 80_000, maxTotalBytes = 8 << 20 } = {}) {
  const db = openDB(name, 1, {
    upgrade(db) {
      db.createObjectStore('results', { keyPath: 'path' }).createIndex('age', ['threadId', 'seq']);
      db.createObjectStore('threads', { keyPath: 'threadId' });
    },
  });
  async function offloadResult({ threadId, callId, toolName, content }) {
    if (content.length <= thresholdChars) return { text: content, stored: false };
    const bytes = new TextEncoder().encode(content).length;
    if (bytes > maxTotalBytes) return { text: content.slice(0, thresholdChars), stored: false };
    const path = `/large_tool_results/${encodeURIComponent(threadId)}/${encodeURIComponent(callId)}`;
    const tx = (await db).transaction(['results', 'threads'], 'readwrite');
    const results = tx.objectStore('results');
    const thread = (await tx.objectStore('threads').get(threadId)) ?? { threadId, seq: 0, totalBytes: 0 };
    const earlier = await results.get(path);
    if (earlier) {
      thread.totalBytes -= earlier.bytes;
      await results.delete(path);
    }
    const oldest = IDBKeyRange.bound([threadId, 0], [threadId, Number.MAX_SAFE_INTEGER]);
    let cursor = await results.index('age').openCursor(oldest);
    while (cursor && thread.totalBytes + bytes > maxTotalBytes) {
      thread.totalBytes -= cursor.value.bytes;
      await cursor.delete();
      cursor = await cursor.continue();
    }
    thread.seq += 1;
    thread.totalBytes += bytes;
    await results.put({ path, threadId, seq: thread.seq, toolName, bytes, content });
    await tx.objectStore('threads').put(thread);
    await tx.done;
    const lines = content.split('\n');
    const header = `The result of ${toolName} (${bytes} bytes, ${lines.length} lines) is stored at ${path}.`;
    const text = `${header} Read it with read_file; its first lines:\n${lines.slice(0, 10).join('\n')}`;
    return { text, path, stored: true };
  }
  async function readLines(path, offset = 0, limit = 100) {
    const result = await (await db).get('results', path);
    if (!result) throw new Error(`${path} is not stored (evicted or never stored)`);
    const lines = result.content.split('\n');
    return `lines ${offset + 1}-${Math.min(offset + limit, lines.length)} of ${lines.length}:\n${lines
      .slice(offset, offset + limit)
      .join('\n')}`;
  }
  async function close() {
    (await db).close();
  }
  return { offloadResult, readLines, close };
}
