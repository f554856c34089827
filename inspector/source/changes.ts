import type { StoreEvent } from '../../lib/index.js';
import type { PanelSource, SourceChange } from './source.js';

/** The change types a view may read again after: the store's events'. */
export type ChangeType = StoreEvent['type'];

/**
 * The change types this version knows: the store events' (a notice on the channel naming another is
 * dropped). A Set, so a type such as `__proto__` or `toString` is never found through a prototype.
 */
export const KNOWN_CHANGE_TYPES: ReadonlySet<string> = new Set<ChangeType>([
  'stored',
  'evicted',
  'restored',
  'failed',
  'request',
  'thread-cleared',
]);

/** Every type but a model request recorded, which changes only the context ledger. */
export const ALL_BUT_REQUESTS: ReadonlySet<ChangeType> = new Set(
  [...(KNOWN_CHANGE_TYPES as ReadonlySet<ChangeType>)].filter((type) => type !== 'request'),
);

/** A view of the panel that reads again after changes: what it listens to, how it batches, what it reads. */
export interface ChangeView {
  /**
   * The change types it hears; changes of other known types never reach it. A type this version
   * does not know (a custom source's) may have changed anything, and "anything may have changed"
   * (undefined) does: both always reach it.
   */
  types: ReadonlySet<ChangeType>;
  /** How long after the first change it waits before it reads (0: once the task that told it ends). */
  batchMs: number;
  /**
   * Hears changes as they come (only those of its `types`; undefined: anything may have changed),
   * to note what to read: true when there is something, so it is to be read.
   */
  hear(changes: readonly SourceChange[] | undefined): boolean;
  /** Reads what it noted. Never run twice at once: what it hears meanwhile is read in one run after. */
  read(): Promise<void>;
}

/**
 * A view registered: `schedule()` reads it as after a change (a new target), `schedule(true)` at
 * once (its first read, before the first paint); `stop()` unregisters it.
 */
export interface Registration {
  schedule(now?: boolean): void;
  stop(): void;
}

interface Registered {
  view: ChangeView;
  timer: ReturnType<typeof setTimeout> | undefined;
  queued: boolean;
  reading: boolean;
  again: boolean;
  stopped: boolean;
}

/**
 * The panel's one subscription to its source, and its one batching: every view registers here (the
 * lists, the marks and budgets, the Context tab, the origin's storage, the unreadable records) with
 * the change types it reads again after and its batch window, instead of subscribing and timing
 * itself. Changes are handed to each view as they come; its read runs once per window, never two at
 * once, and once more after a read for what was heard during it. The source is listened to while
 * one view is registered.
 */
export class ChangeRegistry {
  readonly #source: PanelSource;
  readonly #views = new Set<Registered>();
  #unsubscribe: (() => void) | undefined;

  constructor(source: PanelSource) {
    this.#source = source;
  }

  register(view: ChangeView): Registration {
    const registered: Registered = {
      view,
      timer: undefined,
      queued: false,
      reading: false,
      again: false,
      stopped: false,
    };
    this.#views.add(registered);
    this.#unsubscribe ??= this.#source.onChange((changes) => this.#tell(changes));
    return {
      schedule: (now = false) => this.#schedule(registered, now),
      stop: () => {
        registered.stopped = true;
        clearTimeout(registered.timer);
        this.#views.delete(registered);
        if (this.#views.size > 0) return;
        this.#unsubscribe?.();
        this.#unsubscribe = undefined;
      },
    };
  }

  #tell(changes: readonly SourceChange[] | undefined): void {
    for (const registered of [...this.#views]) {
      const { types } = registered.view;
      const heard = changes?.filter(
        (change) => !KNOWN_CHANGE_TYPES.has(change.type) || types.has(change.type as ChangeType),
      );
      if (heard?.length === 0) continue;
      if (registered.view.hear(heard)) this.#schedule(registered);
    }
  }

  #schedule(registered: Registered, now = false): void {
    if (registered.stopped) return;
    if (registered.reading) {
      registered.again = true;
      return;
    }
    if (now) {
      clearTimeout(registered.timer);
      registered.timer = undefined;
      registered.queued = false;
      void this.#read(registered);
      return;
    }
    if (registered.queued) return;
    registered.queued = true;
    const start = () => {
      registered.timer = undefined;
      if (!registered.queued) return; // read at once meanwhile
      registered.queued = false;
      void this.#read(registered);
    };
    if (registered.view.batchMs === 0) queueMicrotask(start);
    else registered.timer = setTimeout(start, registered.view.batchMs);
  }

  async #read(registered: Registered): Promise<void> {
    if (registered.stopped) return;
    registered.reading = true;
    registered.again = false;
    try {
      await registered.view.read();
    } catch {
      // A view shows its own failures; a bug in one is read again at its next change.
    }
    registered.reading = false;
    if (registered.again) this.#schedule(registered);
  }
}
