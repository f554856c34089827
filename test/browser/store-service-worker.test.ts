// S5: the IndexedDB store works without a DOM in a service worker, as in an MV3 extension's
// background. A module service worker (served and transformed by vite like any test module) runs an
// agent on a database; the page opens the same database and checks what it left there.
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../lib/shared/text.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import type { StoreEvent } from '../../lib/store/offload-store.js';
import type { ServiceWorkerJob, ServiceWorkerReply } from './fixtures/store-service-worker.js';

const script = new URL('./fixtures/store-service-worker.ts', import.meta.url);
// The script's folder: the widest scope a worker gets without a Service-Worker-Allowed header. Taken
// from the script's URL, since vite rewrites `new URL('./fixtures/', import.meta.url)` without its '/'.
const scope = new URL('.', script).pathname;

async function activeWorker(registration: ServiceWorkerRegistration): Promise<ServiceWorker> {
  const worker = registration.installing ?? registration.waiting ?? registration.active;
  if (!worker) throw new Error('the registration has no worker');
  if (worker.state === 'activated') return worker;
  return new Promise((resolve, reject) => {
    worker.addEventListener('statechange', () => {
      if (worker.state === 'activated') resolve(worker);
      if (worker.state === 'redundant') reject(new Error('the service worker became redundant (its script failed?)'));
    });
  });
}

function ask(worker: ServiceWorker, job: ServiceWorkerJob): Promise<ServiceWorkerReply> {
  const channel = new MessageChannel();
  const reply = new Promise<ServiceWorkerReply>((resolve) => {
    channel.port1.onmessage = (message: MessageEvent<ServiceWorkerReply>) => resolve(message.data);
  });
  worker.postMessage(job, [channel.port2]);
  return reply;
}

function linesTagged(tag: string): string {
  return Array.from({ length: 120 }, (_, i) => `${tag} line ${i} `.padEnd(80, '.')).join('\n');
}

describe('IndexedDbOffloadStore in a service worker (S5)', () => {
  it('an agent in a module service worker offloads into the database the page then reads', async () => {
    const name = `store-sw-${crypto.randomUUID()}`;
    const texts = [linesTagged('first'), linesTagged('second')];
    const size = utf8Bytes(texts[1]!);
    // Room for one result: the second evicts the first.
    const maxTotalBytes = Math.floor(size * 1.5);
    const registration = await navigator.serviceWorker.register(script, { type: 'module', scope });
    const store = new IndexedDbOffloadStore({ name });
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    try {
      const worker = await activeWorker(registration);
      const reply = await ask(worker, { name, threadId: 't', texts, thresholdTokens: 1000, maxTotalBytes });
      if (!reply.ok) throw new Error(`service worker: ${reply.error}`);
      expect(reply.typeofDocument).toBe('undefined');
      expect(reply.typeofWindow).toBe('undefined');
      expect(reply.isServiceWorker).toBe(true);
      expect(worker.scriptURL).toBe(script.href);

      // The model saw previews, not the texts, and read the stored text back through the file tools.
      for (const [i, seen] of reply.seen.entries()) {
        expect(seen).toContain('/large_tool_results/');
        expect(seen).toContain(`${['first', 'second'][i]} line 0 `);
        expect(seen.length).toBeLessThan(texts[i]!.length);
      }
      expect(reply.readBack).toContain('second line 2 ');
      expect(reply.readBack).not.toContain('second line 3 ');

      // The bound held in the worker: only the second result is left.
      expect(reply.entries.map((entry) => entry.bytes)).toEqual([size]);
      expect(reply.totalBytes).toBe(size);
      expect(reply.totalBytes).toBeLessThanOrEqual(maxTotalBytes);

      // The page's own store on the same database sees exactly what the worker left.
      const entries = await store.list('t');
      expect(entries).toEqual(reply.entries);
      expect(reply.seen[1]).toContain(entries[0]!.path);
      expect(await store.totalBytes('t')).toBe(size);
      expect(await store.read('t', entries[0]!.key)).toBe(texts[1]);
      const evictions = await store.evictions('t');
      expect(evictions.map((eviction) => eviction.reason)).toEqual(['bound']);
      expect(reply.seen[0]).toContain(evictions[0]!.path);
      await expect(store.read('t', evictions[0]!.key)).rejects.toThrow(/evicted/);
      // The worker's writes reached the page's subscribers through the BroadcastChannel.
      await expect.poll(() => events.some((event) => event.type === 'stored')).toBe(true);
    } finally {
      await registration.unregister();
      await store.deleteDatabase();
    }
  });
});
