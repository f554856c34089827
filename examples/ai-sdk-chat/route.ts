// The chat's server route (POST /api/chat), as a Next.js route handler or any server would have
// it: the UI messages in, a UI message stream out. It declares the page's tools and the read tools
// without `execute`, so their calls go back to the page; it runs one step per request (streamText's
// default), so every request passes the page's offload. The model is scripted and offline; an app
// puts its provider's model here.
import { convertToModelMessages, streamText, type UIMessage } from 'ai';
import { routeSystem, routeTools } from './chat-setup.js';
import { offlineModel } from './offline-model.js';

export async function POST(request: Request): Promise<Response> {
  const { messages } = (await request.json()) as { messages: UIMessage[] };
  const result = streamText({
    model: offlineModel(),
    system: routeSystem,
    messages: await convertToModelMessages(messages, { tools: routeTools }),
    tools: routeTools,
  });
  return result.toUIMessageStreamResponse();
}
