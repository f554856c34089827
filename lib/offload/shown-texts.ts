import type { EvictionRecord, OffloadStore, StoredResultInfo } from '../store/offload-store.js';
import { digestedLength, shownTextDigest } from './result-identity.js';

// What the offload showed the model instead of a tool result, kept as data by the calls that made
// it, so a later request (C1–C6) knows a result by its thread and tool call, never by reading the
// offload's own words back from the text. A text that merely looks like a header, a pointer or a
// cut note is an ordinary result.

/** A result the offload replaced by its preview: what the budget needs of it later. */
export interface ReplacedResult {
  key: string;
  path: string;
  /**
   * Exactly the text the model is shown instead; absent when only its header-only form is known
   * (an evicted result's record keeps the preview as a digest).
   */
  preview?: string;
  /** The preview cut to its header (C6); absent when there is none to cut to. */
  headerOnly?: string;
  /** The result's estimated tokens as the tool returned it. */
  originalTokens: number;
}

/** An evicted result's preview as its eviction record keeps it: by digest, with its header-only form. */
interface EvictedPreview {
  key: string;
  path: string;
  previewDigest?: string;
  headerOnly?: string;
  originalTokens: number;
}

/** Replaced results kept per instance (the newest), and the characters of cut texts kept. */
const maxReplaced = 10_000;
/** Results kept under one call id (a model reusing ids names several). */
const maxPerCall = 64;
const maxCutChars = 32 * 1024 * 1024;

/** The stored entry's facts, when it keeps them (written by this version: with its tool call). */
function replacedOf(entry: StoredResultInfo): ReplacedResult | undefined {
  if (entry.toolCallId === undefined) return undefined;
  const { key, path, preview, headerOnly, estimatedTokens } = entry;
  return { key, path, preview, ...(headerOnly === undefined ? {} : { headerOnly }), originalTokens: estimatedTokens };
}

/** The eviction record's facts, when it keeps them (logged by this version: with its tool call and tokens). */
function evictedOf(record: EvictionRecord): EvictedPreview | undefined {
  const { key, path, toolCallId, estimatedTokens, previewDigest, headerOnly } = record;
  if (toolCallId === undefined || estimatedTokens === undefined) return undefined;
  if (previewDigest === undefined && headerOnly === undefined) return undefined;
  return { key, path, previewDigest, headerOnly, originalTokens: estimatedTokens };
}

/** Adds `value` under `id`, newest last, keeping `maxPerCall` an id and `maxReplaced` ids; whether an old id went. */
function remember<T extends { key: string }>(map: Map<string, T[]>, id: string, value: T): boolean {
  const same = (map.get(id) ?? []).filter((known) => known.key !== value.key);
  map.delete(id);
  map.set(id, [...same.slice(-(maxPerCall - 1)), value]);
  if (map.size <= maxReplaced) return false;
  map.delete(map.keys().next().value as string);
  return true;
}

/**
 * The texts this offload made in place of results: results it replaced by a preview (by thread
 * and tool call; the store keeps the same facts with each entry, for another instance or tab),
 * and texts it cut with a note (by the text itself, with the original's tokens: a cut result is
 * stored nowhere). The newest are kept; a result it no longer knows counts as sent.
 */
export class ShownTexts {
  /** By `threadId\ntoolCallId`: a model may reuse a call id, so each id holds the results it named, newest last. */
  readonly #replaced = new Map<string, ReplacedResult[]>();
  /** The same for results evicted before this instance knew them, from the eviction log. */
  readonly #evicted = new Map<string, EvictedPreview[]>();
  readonly #cuts = new Map<string, number>();
  #cutChars = 0;
  /** The threads listed, each with the keys its store events named since (to read). */
  readonly #listed = new Map<string, Set<string>>();
  #unsubscribe: (() => void) | undefined;
  /** Whether an old replaced result was let go since the threads were listed. */
  #dropped = false;

  constructor(readonly store: OffloadStore) {}

  /** Remembers that `toolCallId`'s result in `threadId` was shown as `replaced`. */
  replaced(threadId: string, toolCallId: string, replaced: ReplacedResult): void {
    if (remember(this.#replaced, `${threadId}\n${toolCallId}`, replaced)) this.#dropped = true;
  }

  /**
   * What each of these results was replaced by (in their order; undefined for one whose text is
   * not a replacement the offload made for its call): for those whose text is that replacement (the
   * preview, or the preview cut to its header). What this instance did not replace itself
   * (another tab, a reload) the store's entries say: a thread is listed once, then only the
   * entries its 'stored' and 'restored' events name are read. A store that fails to say (S3)
   * leaves them out, and is asked again next time.
   */
  async replacedResults(
    threadId: string,
    results: readonly { toolCallId: string; text: string }[],
  ): Promise<(ReplacedResult | undefined)[]> {
    const find = () =>
      results.map(({ toolCallId, text }) =>
        this.#replaced.get(`${threadId}\n${toolCallId}`)?.find((r) => r.preview === text || r.headerOnly === text),
      );
    const found = find();
    if (found.every((replaced) => replaced !== undefined)) return found;
    try {
      await this.#readStore(threadId);
    } catch {
      return found;
    }
    const again = find();
    for (const [i, { toolCallId, text }] of results.entries()) {
      if (again[i] === undefined) again[i] = await this.#evictedPreview(threadId, toolCallId, text);
    }
    return again;
  }

  /**
   * What an evicted result (logged with its facts) was replaced by, when `text` is its header-only
   * form or has its preview's length and digest: the newest of the call's that matches.
   */
  async #evictedPreview(threadId: string, toolCallId: string, text: string): Promise<ReplacedResult | undefined> {
    const evicted = this.#evicted.get(`${threadId}\n${toolCallId}`) ?? [];
    let digest: string | undefined;
    for (let i = evicted.length - 1; i >= 0; i--) {
      const { key, path, previewDigest, headerOnly, originalTokens } = evicted[i]!;
      const facts = { key, path, ...(headerOnly === undefined ? {} : { headerOnly }), originalTokens };
      if (headerOnly === text) return facts;
      if (previewDigest === undefined || digestedLength(previewDigest) !== text.length) continue;
      digest ??= await shownTextDigest(text);
      if (digest === previewDigest) return { ...facts, preview: text };
    }
    return undefined;
  }

  async #readStore(threadId: string): Promise<void> {
    this.#unsubscribe ??= this.store.subscribe((event) => {
      if (event.type === 'stored' || event.type === 'restored' || event.type === 'evicted')
        this.#listed.get(event.threadId)?.add(event.key);
    });
    const pending = this.#listed.get(threadId);
    if (pending !== undefined && pending.size === 0) return;
    const keys = pending === undefined ? undefined : [...pending];
    const options = keys === undefined ? undefined : { keys };
    const [entries, evictions] = await Promise.all([
      this.store.list(threadId, options),
      this.store.evictions(threadId, options),
    ]);
    for (const entry of entries) {
      const replaced = entry.threadId === threadId ? replacedOf(entry) : undefined;
      if (replaced !== undefined) this.replaced(threadId, entry.toolCallId!, replaced);
    }
    // Oldest first, so a call's newest eviction is last; a key live again is known by its entry.
    for (const record of evictions) {
      const evicted = record.threadId === threadId ? evictedOf(record) : undefined;
      if (evicted === undefined) continue;
      if (remember(this.#evicted, `${threadId}\n${record.toolCallId}`, evicted)) this.#dropped = true;
    }
    for (const key of keys ?? []) pending?.delete(key);
    if (pending === undefined) this.#listed.set(threadId, new Set());
    // One let go: the threads' listings are no longer whole, so each is listed again.
    if (this.#dropped) {
      this.#dropped = false;
      this.#listed.clear();
    }
  }

  /** Stops listening to the store's events (a later read listens again). */
  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#listed.clear();
  }

  /** Remembers a text this offload cut with a note, and the original's estimated tokens. */
  cut(text: string, originalTokens: number): void {
    if (text.length > maxCutChars / 8) return; // a huge text would push out everything else
    if (!this.#cuts.has(text)) this.#cutChars += text.length;
    this.#cuts.delete(text);
    this.#cuts.set(text, originalTokens);
    while (this.#cutChars > maxCutChars) {
      const oldest = this.#cuts.keys().next().value as string;
      this.#cuts.delete(oldest);
      this.#cutChars -= oldest.length;
    }
  }

  /** The original's tokens when this offload made `text` by cutting a result, else undefined. */
  cutTokens(text: string): number | undefined {
    return this.#cuts.get(text);
  }
}
