import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Composer } from '../examples/shared/composer.js';
import { Conversation } from '../examples/shared/conversation.js';
import { ModelSettingsBox } from '../examples/shared/model-settings.js';
import type { Message, RunResult, ToolCall } from '../lib/agent.js';
import { ToolOutputOffload } from '../lib/index.js';
import {
  type Budget,
  checkpointer,
  type ModelSettings,
  type RuntimeName,
  runtimes,
  SMALL_MODEL_TOKENS,
  store,
} from './agent-setup.js';
import {
  currentThread,
  loadBudget,
  loadModelSettings,
  loadRuntime,
  runMarker,
  saveBudget,
  saveModelSettings,
  saveRuntime,
  startNewThread,
} from './saved-settings.js';

type RunState =
  | { kind: 'loading' }
  | { kind: 'idle' }
  | { kind: 'running'; tools: readonly string[]; note?: string }
  | { kind: 'ended'; status: RunResult['status']; reason: string };

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function RunStatus({ state, onRetry }: { state: RunState; onRetry(): void }) {
  if (state.kind === 'running') {
    const doing = state.tools.length > 0 ? `running ${state.tools.join(', ')}` : 'waiting for the model';
    return (
      <p class="status running" role="status">
        {state.note ? `${state.note} ` : ''}Working: {doing}…
      </p>
    );
  }
  if (state.kind !== 'ended') return null;
  return (
    <div class="status failed" role="alert">
      <p>
        {state.status === 'failed' && state.reason === 'aborted' ? 'Stopped.' : `Run ${state.status}: ${state.reason}`}
      </p>
      {state.status === 'failed' && (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** What the empty thread shows: the offline scenario. */
const intro = (
  <>
    <p>
      <strong>Try the offline scenario:</strong> send any message. The scripted model searches a day of logs (≈ 600 KB)
      and fetches a 2.3 MB changelog in parallel, reads parts back with <code>read_file</code> and <code>grep</code>,
      then fetches enough to go over the store's 3 MiB bound.
    </p>
    <p class="muted">
      Results over the threshold are stored under <code>{ToolOutputOffload.mount}</code>; the model (and this page) sees
      only a header and the first lines. The inspector shows what is stored. Switch on <em>small model</em> and the
      requests are kept under {SMALL_MODEL_TOKENS.toLocaleString('en')} tokens: the oldest results are cleared from them
      (still readable at their paths), and the inspector marks them.
    </p>
  </>
);

/** The chat: the thread, the composer, the model settings; the inspector is mounted beside it. */
export function App() {
  const [threadId, setThreadId] = useState(currentThread);
  const [messages, setMessages] = useState<readonly Message[]>([]);
  const [state, setState] = useState<RunState>({ kind: 'loading' });
  const [settings, setSettings] = useState<ModelSettings>(loadModelSettings);
  const [runtime, setRuntime] = useState<RuntimeName>(loadRuntime);
  const [budget, setBudget] = useState<Budget>(loadBudget);
  const controller = useRef<AbortController>(undefined);
  // The reply streaming in: shown as an assistant bubble until the step's message replaces it.
  const [streaming, setStreaming] = useState<{ text: string; toolCalls: ToolCall[] } | null>(null);

  const agent = useMemo(() => {
    const running = new Map<string, number>();
    return runtimes[runtime].build(
      settings,
      {
        onStep: (thread) => {
          setStreaming(null);
          setMessages([...thread]);
        },
        onStream: (part) =>
          setStreaming((now) => {
            const shown = now ?? { text: '', toolCalls: [] };
            if (part.type === 'text-delta') return { ...shown, text: shown.text + part.text };
            if (part.type === 'tool-call') {
              return { ...shown, toolCalls: [...shown.toolCalls, { id: part.id, name: part.name, args: part.args }] };
            }
            return shown; // what the call cost: the Context tab shows it
          }),
        onTool: (name, started) => {
          running.set(name, (running.get(name) ?? 0) + (started ? 1 : -1));
          const tools = [...running].filter(([, n]) => n > 0).map(([tool]) => tool);
          setState((s) => (s.kind === 'running' ? { ...s, tools } : s));
        },
      },
      budget,
    );
  }, [settings, runtime, budget]);

  const busy = state.kind === 'running' || state.kind === 'loading';

  async function go(action: (signal: AbortSignal) => Promise<RunResult>, note?: string) {
    const aborter = new AbortController();
    controller.current = aborter;
    setState({ kind: 'running', tools: [], note });
    runMarker.set(threadId);
    try {
      const result = await action(aborter.signal);
      setStreaming(null);
      setMessages(result.messages);
      setState(
        result.status === 'completed'
          ? { kind: 'idle' }
          : { kind: 'ended', status: result.status, reason: result.reason ?? '' },
      );
    } catch (error) {
      setStreaming(null);
      setState({ kind: 'ended', status: 'failed', reason: errorText(error) });
      setMessages(await agent.messages(threadId).catch(() => messages));
    } finally {
      // A run that resolved, even as failed, was not interrupted: only a reload mid-run leaves the marker.
      runMarker.clear();
      controller.current = undefined;
    }
  }

  // On load (and when the thread changes): show the saved thread; continue a run a reload interrupted.
  useEffect(() => {
    let current = true;
    (async () => {
      const saved = await agent.messages(threadId).catch(() => []);
      if (!current) return;
      setMessages(saved);
      if (runMarker.interrupted(threadId)) {
        await go((signal) => agent.recover(threadId, { signal }), 'Continuing the run the reload interrupted.');
      } else {
        setState({ kind: 'idle' });
      }
    })();
    return () => {
      current = false;
    };
    // Only on a thread change: a model switch keeps the thread on screen as it is.
  }, [threadId]);

  const send = (text: string) => {
    setMessages((m) => [...m, { role: 'user', id: 'pending', content: [{ type: 'text', text }] }]);
    void go((signal) => agent.run(text, { threadId, signal }));
  };

  const clearThread = async () => {
    if (busy) return;
    const old = threadId;
    setState({ kind: 'loading' });
    await store.clearThread(old);
    // The Checkpointer interface has no delete: an empty checkpoint (null) loads as a new thread.
    await checkpointer.save(old, null);
    setMessages([]);
    setThreadId(startNewThread());
  };

  // Each runtime keeps its thread in its own form: another runtime starts a new thread.
  const switchRuntime = (next: RuntimeName) => {
    if (busy || next === runtime) return;
    saveRuntime(next);
    setRuntime(next);
    setMessages([]);
    setThreadId(startNewThread());
  };

  return (
    <main class="chat">
      <header class="chat-head">
        <h1>tool-output-offload demo</h1>
        <label class="runtime">
          Runtime{' '}
          <select
            value={runtime}
            disabled={busy}
            onChange={(event) => switchRuntime((event.target as HTMLSelectElement).value as RuntimeName)}
          >
            {Object.entries(runtimes).map(([name, { label }]) => (
              <option key={name} value={name}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label
          class="budget"
          title={`Fit every model request to ${SMALL_MODEL_TOKENS.toLocaleString('en')} estimated tokens (contextBudget), as an on-device model needs`}
        >
          <input
            type="checkbox"
            checked={budget === 'small'}
            disabled={busy}
            onChange={(event) => {
              const next: Budget = (event.target as HTMLInputElement).checked ? 'small' : 'whole';
              saveBudget(next);
              setBudget(next);
            }}
          />{' '}
          small model: {SMALL_MODEL_TOKENS.toLocaleString('en')} tokens
        </label>
        <span class="muted thread" title="Thread id">
          {threadId}
        </span>
        <button type="button" onClick={clearThread} disabled={busy}>
          Clear thread
        </button>
      </header>
      <ModelSettingsBox
        settings={settings}
        disabled={busy}
        offlineName="offline scripted demo"
        note={
          <>
            The key stays in this tab's sessionStorage only. The endpoint must allow requests from this page (CORS);
            local servers such as Ollama (<code>http://127.0.0.1:11434/v1</code>) or LM Studio work.
          </>
        }
        onSave={(next) => {
          saveModelSettings(next);
          setSettings(next);
        }}
      />
      <Conversation messages={streaming ? [...messages, streamingMessage(streaming)] : messages} intro={intro}>
        <RunStatus state={state} onRetry={() => go((signal) => agent.recover(threadId, { signal }))} />
      </Conversation>
      <Composer
        busy={busy}
        placeholder="e.g. Why did checkout fail yesterday?"
        onSend={send}
        actions={
          state.kind === 'running' ? (
            <button type="button" onClick={() => controller.current?.abort()}>
              Stop
            </button>
          ) : null
        }
      />
    </main>
  );
}

/** The reply so far as an assistant message, so the conversation draws it like the others. */
function streamingMessage({ text, toolCalls }: { text: string; toolCalls: ToolCall[] }): Message {
  return { role: 'assistant', id: 'streaming', content: text ? [{ type: 'text', text }] : [], toolCalls };
}
