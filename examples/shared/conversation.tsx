import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { Message, ToolCall } from '../../lib/agent.js';
import type { ContentPart } from '../../lib/index.js';

// The thread as the demo and the extension agent show it. Everything from a model or a tool is rendered as text (Preact
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
          {lines.length} {lines.length === 1 ? 'line' : 'lines'} · {text.length.toLocaleString('en')}{' '}
          {text.length === 1 ? 'character' : 'characters'} sent to the model
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

/** The thread; `intro` is shown while it is empty. */
export function Conversation({
  messages,
  intro,
  children,
}: {
  messages: readonly Message[];
  intro: ComponentChildren;
  children?: ComponentChildren;
}) {
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [messages.length, children]);
  return (
    <section class="conversation" aria-label="Conversation" aria-live="polite">
      {messages.length === 0 && <div class="intro">{intro}</div>}
      {messages.map((message) => (
        <Bubble key={message.id} message={message} />
      ))}
      {children}
      <div ref={end} />
    </section>
  );
}
