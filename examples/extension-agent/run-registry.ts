import type { StorageArea } from './chrome.js';

/**
 * The runs a worker started and has not seen end, in chrome.storage.local (it outlives the worker
 * and the browser). A record is written before the run starts and removed when it resolves, so a
 * worker that starts and finds one knows a stopped worker left that run unfinished.
 */
export interface RunRecord {
  threadId: string;
  /** The user's message that started the run; absent when the run was continued ("Continue"). */
  input?: string;
  /**
   * The id of the thread's last user message before this run, or null. The run's own user message
   * is in the checkpoint once its id differs: then `agent.recover` continues the run; otherwise the
   * worker stopped before the run saved anything, and the input is run again.
   */
  lastUserBefore?: string | null;
  /** Worker starts that continued this run (each after the worker before was stopped). */
  attempts: number;
  startedAt: number;
}

const prefix = 'run:';

function isRunRecord(value: unknown): value is RunRecord {
  const record = value as Partial<RunRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.threadId === 'string' &&
    (record.input === undefined || typeof record.input === 'string') &&
    (record.lastUserBefore == null || typeof record.lastUserBefore === 'string') &&
    Number.isSafeInteger(record.attempts) &&
    typeof record.startedAt === 'number'
  );
}

export class RunRegistry {
  constructor(private readonly area: StorageArea) {}

  /** Every unfinished run; a malformed record is reported and skipped, never acted on. */
  async list(): Promise<RunRecord[]> {
    const items = await this.area.get(null);
    const records: RunRecord[] = [];
    for (const [key, value] of Object.entries(items)) {
      if (!key.startsWith(prefix)) continue;
      if (isRunRecord(value) && key === prefix + value.threadId) records.push(value);
      else console.warn(`extension agent: ignored a malformed run record under "${key}"`, value);
    }
    return records;
  }

  async get(threadId: string): Promise<RunRecord | undefined> {
    const value = (await this.area.get(prefix + threadId))[prefix + threadId];
    return isRunRecord(value) ? value : undefined;
  }

  put(record: RunRecord): Promise<void> {
    return this.area.set({ [prefix + record.threadId]: record });
  }

  end(threadId: string): Promise<void> {
    return this.area.remove(prefix + threadId);
  }
}
