import { asFailure, RunFailure } from './failure.js';
import type { HookContext, Middleware, StateKey, TurnEnd } from './middleware.js';
import type { StateUpdate } from './outcome.js';

type Values = Record<string, unknown>;
interface OwnedKey {
  owner: string;
  key: StateKey;
}

/** Every state key of an agent, each owned by the one middleware that declared it in `writes`. */
export class StateKeys {
  readonly #keys = new Map<string, OwnedKey>();

  constructor(middleware: readonly Middleware[]) {
    for (const m of middleware) {
      for (const [name, key] of Object.entries(m.writes ?? {})) {
        const taken = this.#keys.get(name);
        if (taken) {
          throw new Error(`state key "${name}" is declared in the writes of both "${taken.owner}" and "${m.name}"`);
        }
        this.#keys.set(name, { owner: m.name, key });
      }
    }
  }

  /**
   * The saved values with every key that is missing (new thread, middleware added since) at its
   * initial value. Keys no middleware declares any more are kept, so nothing stored is lost.
   */
  withInitial(saved: Values = {}): Values {
    const values: Values = { ...saved };
    for (const [name, { key }] of this.#keys) {
      if (!Object.hasOwn(saved, name)) values[name] = structuredClone(key.initial);
    }
    return values;
  }

  get(name: string): OwnedKey | undefined {
    return this.#keys.get(name);
  }

  names(): string[] {
    return [...this.#keys.keys()];
  }
}

/**
 * R7: checks that an update is an object whose keys are all in the writer's `writes`.
 * `changed` limits the check to the keys the writer added or changed (wrapToolCall layers).
 */
export function checkWrites(writer: Middleware, update: unknown, hook: string, changed?: readonly string[]): void {
  if (update === undefined) return;
  if (typeof update !== 'object' || update === null || Array.isArray(update)) {
    throw new RunFailure(`middleware "${writer.name}" returned from ${hook} an update that is not an object`);
  }
  for (const key of changed ?? Object.keys(update)) {
    if (!writer.writes || !Object.hasOwn(writer.writes, key)) {
      throw new RunFailure(
        `middleware "${writer.name}" wrote state key "${key}" in ${hook}, but "${key}" is not in its writes`,
      );
    }
  }
}

/**
 * Keys that `after` added or changed compared with every one of `passed` (the updates of the outcomes
 * a wrapToolCall layer got from `next`): a key it returns with the value some inner outcome had is
 * passed through, not written.
 */
export function changedKeys(passed: readonly StateUpdate[], after: StateUpdate | undefined): string[] {
  if (!after) return [];
  return Object.keys(after).filter(
    (key) => !passed.some((before) => Object.hasOwn(before, key) && before[key] === after[key]),
  );
}

/**
 * The committed state of one thread during a run. Updates go through a queue: applied strictly one
 * at a time, in the order they were committed, each key through its own (possibly async) `apply` (R8).
 */
export class CommittedState {
  #values: Readonly<Values>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly keys: StateKeys,
    values: Values,
  ) {
    this.#values = Object.freeze({ ...values });
  }

  /** The committed values; a new frozen object after every change. */
  get values(): Readonly<Values> {
    return this.#values;
  }

  /** `context(owner)` gives a key's hooks the view of the middleware that declared it. */
  apply(update: StateUpdate, context: (owner: string) => HookContext): Promise<void> {
    return this.#enqueue(async () => {
      for (const [name, value] of Object.entries(update)) {
        const owned = this.keys.get(name);
        if (!owned) throw new RunFailure(`state key "${name}" is not declared by any middleware`);
        const { key, owner } = owned;
        const next = key.apply
          ? await hookCall(`apply of state key "${name}"`, () => key.apply!(this.#values[name], value, context(owner)))
          : value;
        this.#commit(name, next);
      }
    });
  }

  /** R10: every key whose onBlock is 'restore' goes back to its value before the turn, through its `restore`. */
  restore(before: Readonly<Values>, context: (owner: string) => HookContext): Promise<void> {
    return this.#enqueue(async () => {
      for (const name of this.keys.names()) {
        const { key, owner } = this.keys.get(name)!;
        if (key.onBlock !== 'restore') continue;
        const old = Object.hasOwn(before, name) ? before[name] : structuredClone(key.initial);
        const next = key.restore
          ? await hookCall(`restore of state key "${name}"`, () =>
              key.restore!(this.#values[name], old, context(owner)),
            )
          : old;
        this.#commit(name, next);
      }
    });
  }

  /**
   * Tells every key with an `endTurn` that the turn ended, in key order, after every update queued
   * so far. Never rejects: returns the keys whose `endTurn` threw, with the error (their value stays).
   */
  endTurn(ending: TurnEnd, context: (owner: string) => HookContext): Promise<Array<{ key: string; error: Error }>> {
    const failed: Array<{ key: string; error: Error }> = [];
    const told = this.#enqueue(async () => {
      for (const name of this.keys.names()) {
        const { key, owner } = this.keys.get(name)!;
        if (!key.endTurn) continue;
        try {
          const current = this.#values[name];
          const next = await hookCall(`endTurn of state key "${name}"`, () =>
            key.endTurn!(current, { ...ending }, context(owner)),
          );
          if (next !== current) this.#commit(name, next);
        } catch (error) {
          failed.push({ key: name, error: error as Error });
        }
      }
    });
    return told.then(() => failed);
  }

  #commit(name: string, value: unknown): void {
    this.#values = Object.freeze({ ...this.#values, [name]: value });
  }

  #enqueue(work: () => Promise<void>): Promise<void> {
    const done = this.#queue.then(work);
    this.#queue = done.catch(() => undefined);
    return done;
  }
}

async function hookCall<T>(where: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw asFailure(e, where);
  }
}
