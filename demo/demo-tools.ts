import { delay } from '../examples/shared/offline-turn.js';
import { type Tool, ToolOutcome, tool } from '../lib/agent.js';
import { pageText, searchLogs } from './generated-data.js';

/** Simulated latencies: the log search answers before the page fetch, as a local index would. */
const latency = { search: 150, fetch: 450 };

/** The demo's own tools: both answer from generated data, offline, and both can return megabytes. */
export function demoTools(): Tool[] {
  return [
    tool<{ pattern: string }>({
      name: 'search_logs',
      description:
        "Search one day of the shop's service logs (all services) for lines matching a regular expression, case-insensitive. " +
        'Returns every matching line, up to about 600 KB.',
      parameters: {
        type: 'object',
        properties: { pattern: { type: 'string', description: "A JavaScript regular expression, e.g. 'ERROR|WARN'." } },
        required: ['pattern'],
        additionalProperties: false,
      },
      async execute({ pattern }, { signal }) {
        await delay(latency.search, signal);
        try {
          return searchLogs(pattern).text;
        } catch (error) {
          return ToolOutcome.error((error as Error).message);
        }
      },
    }),
    tool<{ url: string }>({
      name: 'fetch_page',
      description:
        'Fetch a web page and return its text. Offline demo: pages come from a bundled copy of docs.example.com ' +
        '(e.g. https://docs.example.com/releases/full-changelog, https://docs.example.com/api/reference); pages can be megabytes.',
      parameters: {
        type: 'object',
        properties: { url: { type: 'string', description: 'An absolute http(s) URL.' } },
        required: ['url'],
        additionalProperties: false,
      },
      async execute({ url }, { signal }) {
        let parsed: URL;
        try {
          parsed = new URL(url);
        } catch {
          return ToolOutcome.error(`fetch_page: ${JSON.stringify(url)} is not an absolute URL`);
        }
        if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
          return ToolOutcome.error(`fetch_page: only http and https URLs can be fetched, got ${parsed.protocol}`);
        }
        await delay(latency.fetch, signal);
        return pageText(parsed.href);
      },
    }),
  ];
}
