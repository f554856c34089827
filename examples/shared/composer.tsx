import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

interface ComposerProps {
  /** A run is in progress: sending waits. */
  busy: boolean;
  placeholder: string;
  onSend(text: string): void;
  /** Longest message, in characters. */
  maxLength?: number;
  /** More buttons, before Send (e.g. Stop). */
  actions?: ComponentChildren;
}

/** The message box: Enter sends, Shift+Enter starts a new line. */
export function Composer({ busy, placeholder, onSend, maxLength, actions }: ComposerProps) {
  const [draft, setDraft] = useState('');
  const send = () => {
    const text = draft.trim();
    if (!text || busy) return;
    setDraft('');
    onSend(text);
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label for="message" class="composer-label">
        Message
      </label>
      <textarea
        id="message"
        rows={3}
        value={draft}
        maxLength={maxLength}
        placeholder={placeholder}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            send();
          }
        }}
      />
      <div class="actions">
        {actions}
        <button type="submit" disabled={busy || draft.trim() === ''}>
          Send
        </button>
      </div>
    </form>
  );
}
