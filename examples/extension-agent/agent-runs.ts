import type { Agent, Message, RunResult } from '../../lib/agent.js';
import type { Progress } from '../shared/progress.js';
import { buildAgent } from './agent.js';
import type { RunView, ThreadUpdate } from './chat-protocol.js';
import type { AgentChrome } from './chrome.js';
import type { RunRecord, RunRegistry } from './run-registry.js';
import { loadModelSettings } from './settings.js';

/**
 * How many times a run's worker may be stopped before the next worker leaves the run for the user
 * ("Continue") instead of continuing it. A model call that Chrome stops every time (one silent
 * await of over 30 s) would otherwise restart forever.
 */
const maxWorkerDeaths = 3;

/** The workers a recorded run lost: the one that started it, and each that continued it since. */
const deathsOf = (record: RunRecord) => record.attempts + 1;

interface AgentRunsOptions {
  chrome: AgentChrome;
  registry: RunRegistry;
  /** This worker start's id, sent with every update. */
  workerId: string;
  /** Called with a thread's new view after every change. */
  publish(update: ThreadUpdate): void;
}

/** A run in progress in this worker: the thread as its last step showed it and the tools running. */
class ActiveRun {
  readonly #tools = new Map<string, number>();
  /** Settles once the run is prepared (recorded, its thread loaded): before that it has nothing to show. */
  readonly prepared: Promise<void>;
  markPrepared: () => void = () => undefined;
  constructor(
    public messages: readonly Message[],
    readonly recovered: boolean,
  ) {
    this.prepared = new Promise((resolve) => {
      this.markPrepared = resolve;
    });
  }

  tool(name: string, running: boolean): void {
    this.#tools.set(name, (this.#tools.get(name) ?? 0) + (running ? 1 : -1));
  }

  view(): RunView {
    const tools = [...this.#tools].filter(([, n]) => n > 0).map(([name]) => name);
    return { state: 'running', tools, recovered: this.recovered };
  }
}

const idle: RunView = { state: 'idle' };
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const lastUserId = (messages: readonly Message[]) => [...messages].reverse().find((m) => m.role === 'user')?.id ?? null;
const pendingUser = (text: string): Message => ({ role: 'user', id: 'pending', content: [{ type: 'text', text }] });

/**
 * The worker's runs: one at a time per thread, each recorded in the registry while it runs, and
 * continued with `agent.recover` by the next worker when this one is stopped in the middle.
 */
export class AgentRuns {
  readonly #active = new Map<string, ActiveRun>();
  readonly #ended = new Map<string, RunView>();
  /** Reads threads (messages only: its model is never called). */
  readonly #reader: Agent;
  #ready: Promise<void> = Promise.resolve();

  constructor(private readonly options: AgentRunsOptions) {
    this.#reader = buildAgent(options.chrome, { kind: 'offline' });
  }

  /** The thread as it is now: the active run's view, else the saved messages and how the last run ended. */
  async view(threadId: string): Promise<ThreadUpdate> {
    await this.#ready;
    const active = this.#active.get(threadId);
    if (active) {
      await active.prepared;
      if (this.#active.get(threadId) === active) return this.#update(threadId, active.messages, active.view());
    }
    const messages = await this.#reader.messages(threadId);
    const record = await this.options.registry.get(threadId);
    const run = record && !this.#active.has(threadId) ? stalled(record) : (this.#ended.get(threadId) ?? idle);
    return this.#update(threadId, messages, run);
  }

  /** Starts a run of `text` on the thread; throws when one is in progress there. */
  async send(threadId: string, text: string): Promise<void> {
    await this.#ready;
    const active = this.#claim(threadId, false);
    void this.#execute(threadId, active, async () => {
      const before = await this.#reader.messages(threadId).catch(() => []);
      active.messages = [...before, pendingUser(text)];
      // Recorded before the run starts, so a worker stopped at any point after this finds it.
      await this.options.registry.put({
        threadId,
        input: text,
        lastUserBefore: lastUserId(before),
        attempts: 0,
        startedAt: Date.now(),
      });
      return (agent) => agent.run(text, { threadId });
    });
  }

  /** Continues the thread's unfinished run (failed, or left to the user after repeated worker deaths). */
  async continue(threadId: string): Promise<void> {
    await this.#ready;
    const active = this.#claim(threadId, false);
    void this.#execute(threadId, active, async () => {
      const record = await this.options.registry.get(threadId);
      return this.#resumption({ ...(record ?? { threadId, startedAt: Date.now() }), attempts: 0 }, active);
    });
  }

  /**
   * On worker start: every run the registry still holds was left unfinished by a stopped worker.
   * Each is continued (a run that never saved its user message is started again), unless it
   * already lost `maxWorkerDeaths` workers; requests wait until every such run is claimed.
   */
  recoverUnfinished(): Promise<void> {
    const claimed = (async () => {
      const records = await this.options.registry.list();
      return records.flatMap((record) => {
        if (deathsOf(record) >= maxWorkerDeaths || this.#active.has(record.threadId)) {
          if (!this.#active.has(record.threadId)) this.#ended.set(record.threadId, stalled(record));
          return [];
        }
        return [{ record, active: this.#claim(record.threadId, true) }];
      });
    })();
    this.#ready = claimed.then(
      () => undefined,
      (error) => console.error('extension agent: reading the unfinished runs failed', error),
    );
    return claimed.then(async (runs) => {
      await Promise.all(
        runs.map(({ record, active }) =>
          this.#execute(record.threadId, active, () =>
            this.#resumption({ ...record, attempts: record.attempts + 1 }, active),
          ),
        ),
      );
    });
  }

  /**
   * Saves `record`, then says how to go on: `agent.recover` when the run's user message is in the
   * checkpoint, else the run again from its input (the worker stopped before the run saved anything).
   */
  async #resumption(record: RunRecord, active: ActiveRun): Promise<(agent: Agent) => Promise<RunResult>> {
    const { threadId, input } = record;
    await this.options.registry.put(record);
    const saved = await this.#reader.messages(threadId).catch(() => []);
    if (input === undefined || lastUserId(saved) !== record.lastUserBefore) {
      active.messages = saved;
      return (agent) => agent.recover(threadId);
    }
    active.messages = [...saved, pendingUser(input)];
    return (agent) => agent.run(input, { threadId });
  }

  /** Marks the thread as running in this worker, or throws when it already is. */
  #claim(threadId: string, recovered: boolean): ActiveRun {
    if (this.#active.has(threadId)) {
      throw new Error(`a run is already in progress in thread "${threadId}"; wait for it to end`);
    }
    const active = new ActiveRun([], recovered);
    this.#active.set(threadId, active);
    this.#ended.delete(threadId);
    return active;
  }

  /** Prepares the run (`prepare` says how to start it), runs it, and publishes every change until it ends. */
  async #execute(
    threadId: string,
    active: ActiveRun,
    prepare: () => Promise<(agent: Agent) => Promise<RunResult>>,
  ): Promise<void> {
    const publish = () => this.options.publish(this.#update(threadId, active.messages, active.view()));
    const progress: Progress = {
      onStep(messages) {
        active.messages = [...messages];
        publish();
      },
      onTool(name, running) {
        active.tool(name, running);
        publish();
      },
    };
    let ended: RunView;
    try {
      const start = await prepare().finally(() => active.markPrepared());
      publish();
      const result = await start(
        buildAgent(this.options.chrome, await loadModelSettings(this.options.chrome), progress),
      );
      active.messages = result.messages;
      ended =
        result.status === 'completed' ? idle : { state: 'ended', status: result.status, reason: result.reason ?? '' };
    } catch (error) {
      ended = { state: 'ended', status: 'failed', reason: errorText(error) };
      active.messages = await this.#reader.messages(threadId).catch(() => active.messages);
    }
    // The run resolved (whatever its status): no later worker should continue it.
    await this.options.registry.end(threadId).catch((error) => console.error('extension agent:', error));
    this.#active.delete(threadId);
    this.#ended.set(threadId, ended);
    this.options.publish(this.#update(threadId, active.messages, ended));
  }

  #update(threadId: string, messages: readonly Message[], run: RunView): ThreadUpdate {
    return { type: 'thread', threadId, workerId: this.options.workerId, messages: [...messages], run };
  }
}

function stalled(record: RunRecord): RunView {
  return {
    state: 'stalled',
    reason: `the extension's worker was stopped ${deathsOf(record)} times during this run`,
  };
}
