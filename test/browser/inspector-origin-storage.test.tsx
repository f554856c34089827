import { afterEach, describe, expect, it, vi } from 'vitest';
import { exposeToInspector } from '../../inspector/index.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import type { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { hasStorageApi } from './fixtures/storage-api.js';
import { cleanupMounts, type Mounted, mount, put, sampleStore, until } from './inspector-fixtures.js';

const stops: Array<() => void> = [];
afterEach(() => {
  cleanupMounts();
  for (const stop of stops.splice(0)) stop();
});

const MiB = 1 << 20;
const GiB = 1 << 30;

/** The sample store with the origin's storage as `estimate()` (and `persisted()` when given) report it. */
async function storeWithEstimate(usage: { bytes: number }, persisted?: boolean) {
  const store = await sampleStore();
  const estimate = vi.fn(async (): Promise<StorageEstimate> => ({ usage: usage.bytes, quota: 1.2 * GiB }));
  Object.assign(store, { estimate });
  if (persisted !== undefined) Object.assign(store, { persisted: async () => persisted });
  return { store, estimate };
}

const header = (view: Mounted) => view.one('.title').textContent ?? '';

describe("the origin's storage in the header", () => {
  it('shows usage and quota where the store has estimate(), and whether it is persisted where it has persisted()', async () => {
    const { store } = await storeWithEstimate({ bytes: 12.3 * MiB }, true);
    const view = mount({ store });
    await until(() =>
      expect(header(view)).toContain('whole site on disk (browser quota): 12 MiB of 1.2 GiB · persisted'),
    );

    const { store: notPersisted } = await storeWithEstimate({ bytes: 300 * 1024 }, false);
    const second = mount({ store: notPersisted });
    await until(() =>
      expect(header(second)).toContain('whole site on disk (browser quota): 300 KiB of 1.2 GiB · not persisted'),
    );
  });

  it('says nothing of persistence without persisted(), and nothing at all without estimate() or when it fails', async () => {
    const { store } = await storeWithEstimate({ bytes: 5 * MiB });
    const view = mount({ store });
    await until(() => expect(header(view)).toContain('whole site on disk (browser quota): 5.0 MiB of 1.2 GiB'));
    expect(header(view)).not.toContain('persisted');

    const plain = mount({ store: await sampleStore() });
    await until(() => expect(plain.paths()).toHaveLength(3));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(header(plain)).not.toContain('whole site on disk');

    const failing = await sampleStore();
    Object.assign(failing, { estimate: () => Promise.reject(new DOMException('no storage', 'SecurityError')) });
    const quiet = mount({ store: failing });
    await until(() => expect(quiet.paths()).toHaveLength(3));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(header(quiet)).not.toContain('whole site on disk');
    expect(quiet.all('[role="alert"]')).toHaveLength(0);
  });

  it('is read again after changes, once per burst rather than once per event', async () => {
    const usage = { bytes: 1 * MiB };
    const { store, estimate } = await storeWithEstimate(usage);
    const view = mount({ store });
    await until(() => expect(header(view)).toContain('whole site on disk (browser quota): 1.0 MiB of 1.2 GiB'));
    const before = estimate.mock.calls.length;

    usage.bytes = 40 * MiB;
    await Promise.all(Array.from({ length: 500 }, (_, i) => put(store, `t${i % 3}`, `burst-${i}`, `text ${i}`)));
    await until(() => expect(header(view)).toContain('whole site on disk (browser quota): 40 MiB of 1.2 GiB'));
    await new Promise((resolve) => setTimeout(resolve, 700)); // any trailing read has run
    expect(estimate.mock.calls.length - before).toBeGreaterThanOrEqual(1);
    expect(estimate.mock.calls.length - before).toBeLessThanOrEqual(3);
  });

  it('crosses the channel: the exposing window estimates, the panel shows it', async () => {
    const { store, estimate } = await storeWithEstimate({ bytes: 12.3 * MiB }, false);
    const channel = `origin-storage-test-${crypto.randomUUID()}`;
    stops.push(exposeToInspector(store as MemoryOffloadStore, { channel }));
    const view = mount({ channel });
    await until(() =>
      expect(header(view)).toContain('whole site on disk (browser quota): 12 MiB of 1.2 GiB · not persisted'),
    );
    expect(estimate).toHaveBeenCalled();
  });

  it.runIf(hasStorageApi)("shows the real origin's estimate with IndexedDbOffloadStore", async () => {
    const store = new IndexedDbOffloadStore({ name: `inspector-estimate-${crypto.randomUUID()}` });
    try {
      await put(store, 'chat', 'one', 'x'.repeat(100_000));
      const expected = await navigator.storage.estimate();
      expect(expected.quota).toBeGreaterThan(0);
      const view = mount({ store });
      await until(() => expect(view.paths()).toHaveLength(1));
      await until(() =>
        expect(header(view)).toMatch(
          /whole site on disk \(browser quota\): [\d.]+ (B|KiB|MiB|GiB) of [\d.]+ (MiB|GiB|TiB)/,
        ),
      );
    } finally {
      cleanupMounts();
      await store.deleteDatabase();
    }
  });

  it.runIf(!hasStorageApi)(
    'says nothing of origin storage where the browser has no navigator.storage (WebKitGTK)',
    async () => {
      const store = new IndexedDbOffloadStore({ name: `inspector-estimate-${crypto.randomUUID()}` });
      try {
        await put(store, 'chat', 'one', 'x'.repeat(100_000));
        const view = mount({ store });
        await until(() => expect(view.paths()).toHaveLength(1));
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(header(view)).not.toContain('whole site on disk');
        expect(view.all('[role="alert"]')).toHaveLength(0);
      } finally {
        cleanupMounts();
        await store.deleteDatabase();
      }
    },
  );
});
