// The side panel: the chat with the worker's agent, the inspector over its store, the model choice.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { mountInspector } from '../../../inspector/index.js';
import { IndexedDbOffloadStore } from '../../../lib/index.js';
import type { ModelSettings } from '../../shared/model-choice.js';
import { ModelSettingsBox } from '../../shared/model-settings.js';
import { newThreadId, type ThreadUpdate } from '../chat-protocol.js';
import { type AgentChrome, agentChrome } from '../chrome.js';
import { loadModelSettings, savedThread, saveModelSettings, saveThread, storeName } from '../settings.js';
import { Chat } from './chat.js';
import { ChatConnection, type LinkState } from './connection.js';
import './sidepanel.css';

type Tab = 'chat' | 'inspector';

const linkText: Record<LinkState, string> = {
  connected: 'connected',
  reconnecting: 'the worker stopped mid-run: reconnecting',
  asleep: 'the worker is asleep; it starts again when you send',
};

/**
 * The inspector reads the worker's IndexedDB store directly: the panel has the worker's origin, so
 * it needs no channel through the worker, keeps working while the worker is stopped, and never wakes
 * it. The worker's writes reach it as the store's change notices (BroadcastChannel).
 */
function Inspector() {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const store = new IndexedDbOffloadStore({ name: storeName });
    // Each gauge shows the bound the store keeps for its thread (the worker's maxTotalBytes).
    return mountInspector(host.current!, { store }, { label: 'extension agent' });
  }, []);
  return <div class="inspector" ref={host} />;
}

interface AppProps {
  chrome: AgentChrome;
  initialThread: string;
  initialSettings: ModelSettings;
}

function App({ chrome, initialThread, initialSettings }: AppProps) {
  const [tab, setTab] = useState<Tab>('chat');
  const [shown, setShown] = useState<ReadonlySet<Tab>>(new Set(['chat']));
  const [threadId, setThreadId] = useState(initialThread);
  const [thread, setThread] = useState<ThreadUpdate>();
  const [link, setLink] = useState<LinkState>('asleep');
  const [error, setError] = useState('');
  const [settings, setSettings] = useState(initialSettings);
  const connection = useRef<ChatConnection>(undefined);

  useEffect(() => {
    const opened = new ChatConnection(chrome.runtime, initialThread, {
      onUpdate: (update) => {
        setThread(update);
        setError('');
      },
      onError: setError,
      onState: setLink,
    });
    connection.current = opened;
    return () => opened.close();
  }, [chrome, initialThread]);

  const choose = (next: Tab) => {
    setTab(next);
    setShown((before) => new Set([...before, next]));
  };
  const newChat = () => {
    const id = newThreadId();
    setThreadId(id);
    setThread(undefined);
    void saveThread(chrome, id);
    connection.current?.open(id);
  };

  return (
    <main class="panel">
      <header>
        <div role="tablist">
          {(['chat', 'inspector'] as const).map((name) => (
            <button type="button" role="tab" aria-selected={tab === name} onClick={() => choose(name)} key={name}>
              {name === 'chat' ? 'Chat' : 'Inspector'}
            </button>
          ))}
        </div>
        <button type="button" onClick={newChat} disabled={thread?.run.state === 'running'}>
          New chat
        </button>
      </header>
      <p class="link" data-state={link} data-worker={thread?.workerId ?? ''} role="status">
        <span class="thread">{threadId}</span> · worker {thread?.workerId ?? '…'} · {linkText[link]}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <section class="tab chat" hidden={tab !== 'chat'}>
        <ModelSettingsBox
          settings={settings}
          disabled={thread?.run.state === 'running'}
          offlineName="offline scripted model"
          note={
            <>
              The key is kept in chrome.storage.session: in memory, gone when the browser closes (a run continued after
              a restart of the browser needs it again). The worker calls the endpoint with the extension's host
              permissions, so no CORS setup is needed.
            </>
          }
          onSave={(next) => {
            setSettings(next);
            void saveModelSettings(chrome, next);
          }}
        />
        <Chat
          thread={thread}
          onSend={(text) => connection.current?.send(text)}
          onContinue={() => connection.current?.continueRun()}
        />
      </section>
      {/* Mounted when first shown, then kept: switching tabs keeps its selection and scroll. */}
      <section class="tab" hidden={tab !== 'inspector'}>
        {shown.has('inspector') && <Inspector />}
      </section>
    </main>
  );
}

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  let chrome: AgentChrome;
  try {
    chrome = agentChrome('side panel');
  } catch (error) {
    root.textContent = String(error);
    return;
  }
  let threadId = await savedThread(chrome);
  if (!threadId) {
    threadId = newThreadId();
    await saveThread(chrome, threadId);
  }
  render(<App chrome={chrome} initialThread={threadId} initialSettings={await loadModelSettings(chrome)} />, root);
}

void start();
