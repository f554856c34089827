/**
 * The `data` of each event of a text/event-stream body, as the bytes arrive (chunk boundaries
 * anywhere, even inside a character). Comments and other fields are skipped. The reader is
 * released (cancelled) when the consumer stops early.
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A trailing '\r' may be the first half of '\r\n': keep it until the next chunk.
      const lines = buffer.split(/\r\n|\r(?!$)|\n/);
      buffer = done ? '' : lines.pop()!;
      for (const line of done ? [...lines, ''] : lines) {
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
      }
      if (done) break;
    }
    finished = true;
  } finally {
    if (!finished) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
