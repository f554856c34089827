import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { chosenModel } from '../../examples/shared/model-choice.js';
import { modelReply } from '../../lib/agent.js';

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A local Chat Completions endpoint: hands each request's body to `answer`, which writes the reply. */
async function endpoint(answer: (body: Record<string, unknown>, response: ServerResponse) => void) {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => answer(JSON.parse(text), response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const request = { systemPrompt: 'Be brief.', messages: [], tools: [] };
const noOffline = () => {
  throw new Error('the offline model was chosen');
};

describe("the examples' OpenAI-compatible model", () => {
  it('streams: asks for SSE, and each text delta reaches the app before the reply ends', async () => {
    const seen: string[] = [];
    let finish: () => void = () => {};
    let asked: Record<string, unknown> = {};
    const baseUrl = await endpoint((body, response) => {
      asked = body;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
      response.write(`data: ${JSON.stringify(chunk('Hel'))}\n\n`);
      // The rest is sent only once the first delta has reached the app.
      finish = () => {
        response.write(`data: ${JSON.stringify(chunk('lo'))}\n\n`);
        response.end('data: [DONE]\n\n');
      };
    });
    const model = chosenModel({ kind: 'openai', baseUrl, model: 'm', apiKey: '' }, noOffline);
    const reply = await modelReply(model, request, {
      signal: new AbortController().signal,
      onPart: (part) => {
        if (part.type === 'text-delta') seen.push(part.text);
        if (seen.length === 1) finish();
      },
    });
    expect(asked).toMatchObject({ model: 'm', stream: true, stream_options: { include_usage: true } });
    expect(seen).toEqual(['Hel', 'lo']);
    expect(reply).toMatchObject({ content: 'Hello' });
  });

  it('still reads a server that ignores stream and answers whole', async () => {
    const baseUrl = await endpoint((_body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'whole' } }] }));
    });
    const model = chosenModel({ kind: 'openai', baseUrl, model: 'm', apiKey: 'k' }, noOffline);
    expect(await modelReply(model, request, { signal: new AbortController().signal })).toMatchObject({
      content: 'whole',
    });
  });
});
