import type { ChangeNotice } from './channel-protocol.js';

/** Times one request is sent again at most, whatever the reconnects: its life is a few seconds. */
const MAX_RESENDS = 2;

interface Open<T> {
  request: T;
  timer: ReturnType<typeof setTimeout>;
  /** The reconnect it was last sent after (PendingRequests.reconnected counts them). */
  sentAfter: number;
  resends: number;
}

/**
 * Requests sent on one link and not answered yet, each with a deadline: the one place where the
 * inspector's channel, the DevTools panel's port and the extension's content script keep what
 * they asked and give up on what nobody answers, and decide when one is sent again: once after
 * each reconnect, at most MAX_RESENDS times.
 */
export class PendingRequests<T> {
  readonly #open = new Map<string, Open<T>>();
  readonly #timeoutMs: number;
  readonly #onTimeout: (id: string, request: T) => void;
  #reconnects = 0;

  /**
   * @param timeoutMs how long a request may wait.
   * @param onTimeout called with a request that waited `timeoutMs` in vain (it is no longer pending).
   */
  constructor(timeoutMs: number, onTimeout: (id: string, request: T) => void) {
    this.#timeoutMs = timeoutMs;
    this.#onTimeout = onTimeout;
  }

  get size(): number {
    return this.#open.size;
  }

  /** The request pending under `id`, or undefined. */
  get(id: string): T | undefined {
    return this.#open.get(id)?.request;
  }

  /** Adds a request, or gives one already pending under `id` its whole time again. */
  add(id: string, request: T): void {
    const open = this.#open.get(id);
    clearTimeout(open?.timer);
    const timer = setTimeout(() => {
      this.#open.delete(id);
      this.#onTimeout(id, request);
    }, this.#timeoutMs);
    this.#open.set(id, {
      request,
      timer,
      sentAfter: open?.sentAfter ?? this.#reconnects,
      resends: open?.resends ?? 0,
    });
  }

  /** The other side reconnected (what it was sent before may never have reached it). */
  reconnected(): void {
    this.#reconnects += 1;
  }

  /**
   * True when the pending request `id` may be sent again, which it records: not yet sent after
   * the last reconnect, and sent again fewer than MAX_RESENDS times.
   */
  claimResend(id: string): boolean {
    const open = this.#open.get(id);
    if (!open || open.sentAfter === this.#reconnects || open.resends >= MAX_RESENDS) return false;
    open.sentAfter = this.#reconnects;
    open.resends += 1;
    return true;
  }

  /** Removes the request `id` (answered, or given up), returning it; undefined when it was not pending. */
  take(id: string): T | undefined {
    const open = this.#open.get(id);
    if (!open) return undefined;
    clearTimeout(open.timer);
    this.#open.delete(id);
    return open.request;
  }

  /** Removes every pending request (the other side went away), returning them with their ids. */
  takeAll(): Array<[id: string, request: T]> {
    const all = [...this.#open].map(([id, { request, timer }]): [string, T] => {
      clearTimeout(timer);
      return [id, request];
    });
    this.#open.clear();
    return all;
  }

  /** The pending requests with their ids, in the order they were added. */
  entries(): Array<[id: string, request: T]> {
    return [...this.#open].map(([id, { request }]): [string, T] => [id, request]);
  }
}

/** Exposing sides remembered, so a repeat is known: more are forgotten, oldest first. */
const MAX_SIDES = 64;

/**
 * The exposing sides a link heard announce themselves ("exposed" notices): a side not heard before
 * is a reconnect (what was sent before it appeared may never have reached it); a repeat, which
 * any script of the origin can post, is not. Sides of an older version name no instance: they
 * count as one.
 */
export class ExposedSides {
  readonly #heard = new Set<string>();

  /** True when `notice` announces an exposing side not heard before (which it records). */
  isNew(notice: ChangeNotice): boolean {
    if (notice.events !== 0) return false;
    const side = notice.instance ?? '';
    if (this.#heard.has(side)) return false;
    this.#heard.add(side);
    if (this.#heard.size > MAX_SIDES) this.#heard.delete(this.#heard.values().next().value as string);
    return true;
  }
}
