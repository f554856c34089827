import { type Model, openAICompatibleModel } from '../../lib/index.js';

/** The model an example runs: its offline scripted one, or an OpenAI-compatible endpoint. */
export type ModelSettings = { kind: 'offline' } | { kind: 'openai'; baseUrl: string; model: string; apiKey: string };

export function chosenModel(settings: ModelSettings, offline: () => Model): Model {
  if (settings.kind === 'offline') return offline();
  return openAICompatibleModel({
    baseUrl: settings.baseUrl,
    model: settings.model,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  });
}
