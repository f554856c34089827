import { ToolOutputOffload } from '../../../lib/index.js';
import { Composer } from '../../shared/composer.js';
import { Conversation } from '../../shared/conversation.js';
import { maxInputChars, type RunView, type ThreadUpdate } from '../chat-protocol.js';

const intro = (
  <>
    <p>
      <strong>Ask about the page you are looking at.</strong> The agent lists your tabs and reads the active page with{' '}
      <code>chrome.scripting</code>. Pages are often hundreds of KB: such a result is stored under{' '}
      <code>{ToolOutputOffload.mount}</code> in the extension's IndexedDB, and the model sees a preview, then reads back
      what it needs with <code>read_file</code> and <code>grep</code>.
    </p>
    <p class="muted">The offline scripted model needs no key. Put a word in quotes to make it grep for that word.</p>
  </>
);

function RunStatus({ run, onContinue }: { run: RunView; onContinue(): void }) {
  if (run.state === 'running') {
    const doing = run.tools.length > 0 ? `running ${run.tools.join(', ')}` : 'waiting for the model';
    return (
      <p class="status running" role="status" data-run="running" data-tools={run.tools.join(' ')}>
        {run.recovered ? 'Continuing the run a stopped worker left unfinished. ' : ''}Working: {doing}…
      </p>
    );
  }
  if (run.state === 'idle') return null;
  const text = run.state === 'stalled' ? `Stopped: ${run.reason}.` : `Run ${run.status}: ${run.reason}`;
  return (
    <div class="status failed" role="alert" data-run={run.state}>
      <p>{text}</p>
      <button type="button" onClick={onContinue}>
        Continue
      </button>
    </div>
  );
}

interface ChatProps {
  thread: ThreadUpdate | undefined;
  onSend(text: string): void;
  onContinue(): void;
}

/** The conversation, the run's status and the composer. */
export function Chat({ thread, onSend, onContinue }: ChatProps) {
  return (
    <>
      <Conversation messages={thread?.messages ?? []} intro={intro}>
        {thread && <RunStatus run={thread.run} onContinue={onContinue} />}
      </Conversation>
      <Composer
        busy={!thread || thread.run.state === 'running'}
        maxLength={maxInputChars}
        placeholder='e.g. What does this page say about "pricing"?'
        onSend={onSend}
      />
    </>
  );
}
