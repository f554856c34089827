import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { type ContentPart, type Message, type ToolCall, ToolOutputOffload } from '../lib/index.js';

// The thread as the page shows it. Everything from a model or a tool is rendered as text (Preact
// escapes it), never as HTML.

/** Lines of a tool result shown before "Show all". */
const shownLines = 8;

function partsText(content: readonly ContentPart[]): string {
  return content
    .map((p) => (p.type === 'text' ? p.text : `[${p.type}: ${p.mimeType}${p.name ? `, ${p.name}` : ''}]`))
    .join('\n');
}

function storedPathOf(text: string): string | undefined {
  if (!text.startsWith('[Stored tool result]')) return undefined;
  return /^Path: (\S+)$/m.exec(text)?.[1];
}

function argsText(call: ToolCall): string {
  const json = JSON.stringify(call.args ?? {});
  return json.length > 160 ? `${json.slice(0, 160)}…` : json;
}

function ToolCalls({ calls }: { calls: readonly ToolCall[] }) {
  if (calls.length === 0) return null;
  return (
    <ul class="calls" aria-label={calls.length > 1 ? `${calls.length} tool calls in parallel` : 'Tool call'}>
      {calls.map((call) => (
        <li key={call.id}>
          <span class="arrow">→</span> <strong>{call.name}</strong> <code>{argsText(call)}</code>
        </li>
      ))}
    </ul>
  );
}

function ToolResult({ message }: { message: Extract<Message, { role: 'tool' }> }) {
  const text = partsText(message.content);
  const lines = text.split('\n');
  const path = storedPathOf(text);
  const kind = message.isError ? 'error' : path ? 'stored' : 'inline';
  return (
    <article class={`tool-result ${kind}`} aria-label={`Result of ${message.toolName}`}>
      <header>
        <span class="arrow">←</span> <strong>{message.toolName}</strong>{' '}
        {kind === 'stored' && <span class="badge stored">offloaded → {path}</span>}
        {kind === 'error' && <span class="badge error">tool error</span>}
        {kind === 'inline' && <span class="badge">in context</span>}{' '}
        <span class="muted">
          {lines.length} lines · {text.length.toLocaleString('en')} characters sent to the model
        </span>
      </header>
      <pre>{lines.slice(0, shownLines).join('\n')}</pre>
      {lines.length > shownLines && (
        <details>
          <summary>Show all {lines.length} lines</summary>
          <pre>{lines.slice(shownLines).join('\n')}</pre>
        </details>
      )}
    </article>
  );
}

function Bubble({ message }: { message: Message }) {
  if (message.role === 'tool') return <ToolResult message={message} />;
  const text = partsText(message.content);
  if (message.role === 'user') {
    return (
      <article class="bubble user" aria-label="You">
        <p>{text}</p>
      </article>
    );
  }
  return (
    <article class="bubble assistant" aria-label="Assistant">
      {text && <p>{text}</p>}
      <ToolCalls calls={message.toolCalls} />
    </article>
  );
}

export function Conversation({ messages, children }: { messages: readonly Message[]; children?: ComponentChildren }) {
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [messages.length, children]);
  return (
    <section class="conversation" aria-label="Conversation" aria-live="polite">
      {messages.length === 0 && (
        <div class="intro">
          <p>
            <strong>Try the offline scenario:</strong> send any message. The scripted model searches a day of logs (≈
            600 KB) and fetches a 2.3 MB changelog in parallel, reads parts back with <code>read_file</code> and{' '}
            <code>grep</code>, then fetches enough to go over the store's 3 MiB bound.
          </p>
          <p class="muted">
            Results over the threshold are stored under <code>{ToolOutputOffload.mount}</code>; the model (and this
            page) sees only a header and the first lines. The inspector on the right shows what is stored.
          </p>
        </div>
      )}
      {messages.map((message) => (
        <Bubble key={message.id} message={message} />
      ))}
      {children}
      <div ref={end} />
    </section>
  );
}
