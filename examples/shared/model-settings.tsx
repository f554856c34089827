import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ModelSettings } from './model-choice.js';

interface Props {
  settings: ModelSettings;
  disabled: boolean;
  onSave(settings: ModelSettings): void;
  /** Where the key is kept and what the endpoint must allow, shown under the fields. */
  note: ComponentChildren;
  /** The summary line's name for the offline model. */
  offlineName: string;
}

/** Chooses the model: the offline scripted one, or any OpenAI-compatible endpoint. */
export function ModelSettingsBox({ settings, disabled, onSave, note, offlineName }: Props) {
  const openai = settings.kind === 'openai' ? settings : undefined;
  const [kind, setKind] = useState(settings.kind);
  const [baseUrl, setBaseUrl] = useState(openai?.baseUrl ?? 'https://api.openai.com/v1');
  const [model, setModel] = useState(openai?.model ?? 'gpt-4o-mini');
  const [apiKey, setApiKey] = useState(openai?.apiKey ?? '');
  const [open, setOpen] = useState(false);

  const summary = openai ? `${openai.model} at ${openai.baseUrl}` : offlineName;
  const submit = (event: Event) => {
    event.preventDefault();
    onSave(
      kind === 'offline' ? { kind } : { kind, baseUrl: baseUrl.trim(), model: model.trim(), apiKey: apiKey.trim() },
    );
    setOpen(false);
  };

  return (
    <details class="settings" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        Model: <span>{summary}</span>
      </summary>
      <form onSubmit={submit}>
        <fieldset disabled={disabled}>
          <legend class="sr-only">Model</legend>
          <label class="choice">
            <input type="radio" name="kind" checked={kind === 'offline'} onChange={() => setKind('offline')} />
            Offline scripted model (no network, no key)
          </label>
          <label class="choice">
            <input type="radio" name="kind" checked={kind === 'openai'} onChange={() => setKind('openai')} />
            OpenAI-compatible endpoint
          </label>
          {kind === 'openai' && (
            <div class="fields">
              <label>
                Base URL
                <input
                  type="url"
                  required
                  value={baseUrl}
                  onInput={(e) => setBaseUrl(e.currentTarget.value)}
                  placeholder="https://api.openai.com/v1"
                />
              </label>
              <label>
                Model name
                <input
                  required
                  value={model}
                  onInput={(e) => setModel(e.currentTarget.value)}
                  placeholder="gpt-4o-mini"
                />
              </label>
              <label>
                API key
                <input
                  type="password"
                  autocomplete="off"
                  value={apiKey}
                  onInput={(e) => setApiKey(e.currentTarget.value)}
                  placeholder="optional for local servers"
                />
              </label>
              <p class="muted">{note}</p>
            </div>
          )}
          <button type="submit">Use this model</button>
        </fieldset>
      </form>
    </details>
  );
}
