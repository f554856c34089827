import { useEffect, useState } from 'preact/hooks';
import type { ModelSettings } from '../../shared/model-choice.js';
import type { AgentChrome } from '../chrome.js';
import { loadModelSettings, saveModelSettings } from '../settings.js';

/** Chooses the model of the next run: the offline scripted one, or an OpenAI-compatible endpoint. */
export function ModelForm({ chrome }: { chrome: Pick<AgentChrome, 'storage'> }) {
  const [kind, setKind] = useState<ModelSettings['kind']>('offline');
  const [baseUrl, setBaseUrl] = useState('https://api.openai.com/v1');
  const [model, setModel] = useState('gpt-4o-mini');
  const [apiKey, setApiKey] = useState('');
  const [saved, setSaved] = useState('');

  useEffect(() => {
    loadModelSettings(chrome).then((settings) => {
      setKind(settings.kind);
      if (settings.kind === 'openai') {
        setBaseUrl(settings.baseUrl);
        setModel(settings.model);
        setApiKey(settings.apiKey);
      }
    });
  }, [chrome]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const settings: ModelSettings =
      kind === 'offline' ? { kind } : { kind, baseUrl: baseUrl.trim(), model: model.trim(), apiKey: apiKey.trim() };
    await saveModelSettings(chrome, settings);
    setSaved(
      kind === 'offline'
        ? 'The next run uses the offline model.'
        : `The next run uses ${settings.kind === 'openai' ? settings.model : ''}.`,
    );
  };

  return (
    <form class="model-form" onSubmit={submit}>
      <label class="choice">
        <input type="radio" name="kind" checked={kind === 'offline'} onChange={() => setKind('offline')} />
        Offline scripted model (no network, no key)
      </label>
      <label class="choice">
        <input type="radio" name="kind" checked={kind === 'openai'} onChange={() => setKind('openai')} />
        OpenAI-compatible endpoint
      </label>
      {kind === 'openai' && (
        <>
          <label>
            Base URL
            <input type="url" required value={baseUrl} onInput={(e) => setBaseUrl(e.currentTarget.value)} />
          </label>
          <label>
            Model name
            <input required value={model} onInput={(e) => setModel(e.currentTarget.value)} />
          </label>
          <label>
            API key
            <input
              type="password"
              autocomplete="off"
              value={apiKey}
              placeholder="optional for local servers"
              onInput={(e) => setApiKey(e.currentTarget.value)}
            />
          </label>
          <p class="muted">
            The key is kept in chrome.storage.session: in memory, gone when the browser closes. A run continued after a
            browser restart needs it entered again.
          </p>
        </>
      )}
      <button type="submit">Use this model</button>
      {saved && <p role="status">{saved}</p>}
    </form>
  );
}
