import { type Model, openAICompatibleModel } from '../../lib/agent.js';

/** The model an example runs: its offline scripted one, or an OpenAI-compatible endpoint (streamed). */
export type ModelSettings = { kind: 'offline' } | { kind: 'openai'; baseUrl: string; model: string; apiKey: string };

export function chosenModel(settings: ModelSettings, offline: () => Model): Model {
  if (settings.kind === 'offline') return offline();
  return openAICompatibleModel({
    baseUrl: settings.baseUrl,
    model: settings.model,
    // Replies show as they arrive; a server that ignores `stream` answers whole, which reads as well.
    stream: true,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  });
}
