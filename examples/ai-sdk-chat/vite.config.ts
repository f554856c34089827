import { defineConfig, type Plugin } from 'vite';

// The AI SDK UI chat example (`npm run example:ai-sdk-chat`): the page, and its server route
// (route.ts) as dev-server middleware at POST /api/chat, loaded through vite's SSR pipeline.
function chatRoute(): Plugin {
  return {
    name: 'ai-sdk-chat-route',
    configureServer(server) {
      server.middlewares.use('/api/chat', async (req, res) => {
        try {
          const chunks: Uint8Array[] = [];
          for await (const chunk of req) chunks.push(chunk as Uint8Array);
          const { POST } = (await server.ssrLoadModule('/route.ts')) as typeof import('./route.js');
          const response = await POST(
            new Request('http://127.0.0.1/api/chat', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: Buffer.concat(chunks),
            }),
          );
          res.statusCode = response.status;
          for (const [name, value] of response.headers) res.setHeader(name, value);
          if (response.body) for await (const chunk of response.body) res.write(chunk);
          res.end();
        } catch (error) {
          res.statusCode = 500;
          res.end(String(error));
        }
      });
    },
  };
}

export default defineConfig({
  root: decodeURIComponent(new URL('.', import.meta.url).pathname),
  plugins: [chatRoute()],
  server: { host: '127.0.0.1' },
  cacheDir: '../../node_modules/.vite-ai-sdk-chat',
  optimizeDeps: { include: ['ai', 'idb'] },
  clearScreen: false,
});
