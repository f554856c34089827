/** One stored result, without its text. */
export interface StoredResultInfo {
  threadId: string;
  /** The call's idempotency key. */
  key: string;
  path: string;
  toolName: string;
  /** UTF-8 bytes stored (after the cut). */
  bytes: number;
  /** UTF-8 bytes of the tool's text. */
  originalBytes: number;
  estimatedTokens: number;
  truncated: boolean;
  /** Position in the thread's eviction queue: higher is newer. */
  seq: number;
  createdAt: number;
  /** Exactly the text the model was shown instead. */
  preview: string;
  /**
   * That text cut to its header (C6), as the offload made it; absent when the model was shown a
   * text of the caller's (a pointer) or for a record written before it was kept.
   */
  headerOnly?: string;
  /**
   * The id of the tool call whose result this is, as the model's messages name it: a later request
   * finds what replaced the result by it (C4), never by reading the shown text back. Absent for a
   * record written before it was kept.
   */
  toolCallId?: string;
  /**
   * The preview's length and digest (`<length>:<base64url>`), copied into the eviction record so a
   * later request still knows the preview once the entry is gone (C4). Absent for a record written
   * before it was kept, or one without a tool call.
   */
  previewDigest?: string;
}

/** Why an entry left the store: see `EvictionRecord.reason`. */
export type EvictionReason = 'bound' | 'quota' | 'summarized' | 'blocked' | 'replaced' | 'expired' | 'cleared';

/** One eviction in a thread's log (kept for the newest `logRetention` a thread, S1). */
export interface EvictionRecord {
  threadId: string;
  key: string;
  path: string;
  /** UTF-8 bytes the entry held. */
  bytes: number;
  /** When, in ms since 1970. */
  at: number;
  /**
   * 'bound': the oldest, to fit maxTotalBytes (O3); 'quota': the oldest, to make room for a commit a
   * full quota refused (S3); 'summarized': a summary covers it (O7);
   * 'blocked': its turn was undone (O8); 'replaced': a rerun of the call; 'expired': the age limit
   * (O13); 'cleared': clearThread.
   */
  reason: EvictionReason;
  /** The tool whose result this was; absent in records written before it was logged. */
  toolName?: string;
  // What a later request knows the evicted result's preview by (C1, C4), copied from the entry;
  // each is absent when the entry did not keep it (or named no tool call).
  /** The tool call whose result this was. */
  toolCallId?: string;
  /** The result's estimated tokens as the tool returned it. */
  estimatedTokens?: number;
  /** The preview's length and digest (`StoredResultInfo.previewDigest`); the preview itself is not kept. */
  previewDigest?: string;
  /** The preview cut to its header (C6). */
  headerOnly?: string;
}

/**
 * A change a store tells its subscribers once it is kept, with the thread's total after it and,
 * where the store knows it, the thread's bound (`bound`: the smallest maxTotalBytes of the agents
 * that wrote to it, as `OffloadStore.bound` reads it), so a reader such as the inspector's gauge
 * need not read it again after each change. Absent: the store does not say (a custom store, or a
 * thread no commit bounded yet).
 */
export type StoreEvent =
  | {
      type: 'stored' | 'evicted' | 'restored';
      threadId: string;
      key: string;
      totalBytes: number;
      bound?: number;
    }
  /** A result could not be stored (e.g. a full quota, S3); `error` says why. */
  | { type: 'failed'; threadId: string; key: string; totalBytes: number; bound?: number; error: string }
  /**
   * A model request was recorded in the thread's context ledger (`recordRequest`): its step and
   * estimated tokens, so a reader reads only what is new (`requests(threadId, { after })`). Told
   * again for the same step when the provider's usage is added to it (`recordUsage`), with `reported`.
   */
  | { type: 'request'; threadId: string; step: number; tokens: number; reported?: ReportedUsage }
  /**
   * `clearThread` deleted what the thread had (told after the 'evicted' of each key it cleared):
   * its entries, failures, eviction log but the 'cleared' records, cleared results and context
   * ledger, whose steps count from 1 again; told only when there was something to clear.
   */
  | { type: 'thread-cleared'; threadId: string };

/** A result that could not be stored (S3): the tool result was cut instead of offloaded. */
export interface StoreFailure {
  threadId: string;
  key: string;
  path: string;
  toolName: string;
  /** UTF-8 bytes that could not be stored. */
  bytes: number;
  at: number;
  /** Why, in words (e.g. the QuotaExceededError's message). */
  error: string;
}

/**
 * A stored record that cannot be read as what it should be (a field missing or of the wrong type, a
 * chunk of text that is not text): another script, an older version of the app or a disk fault
 * wrote it. It is skipped — never listed, counted or read as data — and reported here.
 */
export interface UnreadableRecord {
  /** Which kind of record (the object store holding it). */
  store:
    | 'entries'
    | 'chunks'
    | 'staged'
    | 'evictions'
    | 'undo'
    | 'threads'
    | 'failures'
    | 'seen'
    | 'cleared'
    | 'requests';
  /** Its key in that store, as text (an array key as JSON, e.g. `["chat-1","k1"]`). */
  key: string;
  /** The thread it belongs to, when the record says. */
  threadId?: string;
  /** What is wrong with it, in words (e.g. `bytes is missing`). */
  reason: string;
}

/** What `stage` writes: the text and everything about it but its place in the queue. */
export interface StagedResult extends Omit<StoredResultInfo, 'seq'> {
  text: string;
  /** The turn that staged it: `restoreTurn`/`settle` delete what a turn staged but never committed. */
  turnId?: string;
}

/** How a result `offloadResult` stored was shown, so the same replacement is made again after its eviction. */
export interface SeenDetails {
  toolName: string;
  thresholdTokens: number;
  previewLines: number;
  maxResultBytes: number;
}

/**
 * A result `offloadResult` stored before: how it was shown, and its preview while it is live. The
 * same result offered again gets the same text and is not stored again, also once evicted (A1, A2).
 */
export interface SeenResult extends SeenDetails {
  /** Exactly the text the model was shown; absent once the entry is evicted. */
  preview?: string;
}

/**
 * One change, applied atomically (one transaction in a persistent store).
 * `turnId` tags what the change did so an output Block can undo that turn (O8); a commit without
 * one cannot be undone (what it evicts is deleted). A commit with `seen` records the result as seen
 * (A1): if it already is, the staged copy is discarded and nothing is stored or evicted.
 */
export type StoreChange =
  | {
      type: 'commit';
      threadId: string;
      key: string;
      turnId?: string;
      maxTotalBytes: number;
      seen?: SeenDetails;
      /**
       * The age limit: entries created (`createdAt`) before this time are evicted first, in the same
       * transaction (reason 'expired'), texts and all, so no Block brings them back. Default: none.
       */
      expireBefore?: number;
      /**
       * Whether the commit may evict other entries to fit: false for a copy that is only optional
       * (the context budget's, C3), which is stored only if the thread fits it as it is; otherwise
       * its staged copy goes, nothing is evicted (none for the bound, none to make room under a full
       * quota, whose error is then thrown at once) and `stored` is empty.
       * @default true
       */
      evict?: boolean;
    }
  | { type: 'drop'; threadId: string; keys: readonly string[]; turnId: string; reason: 'summarized' }
  /** Evicts the thread's entries created before `before` (reason 'expired'), texts and all. */
  | { type: 'expire'; threadId: string; before: number };

/** What `apply` did: the keys it made live, what it evicted, and the thread's total and entry count after. */
export interface AppliedChange {
  stored: string[];
  evicted: EvictionRecord[];
  totalBytes: number;
  entries: number;
}

/** How one tool result was shown in a model request: whole, as its preview, as a pointer (cleared, C2), or cut (C6, O9, O11). */
export type ShownAs = 'whole' | 'preview' | 'pointer' | 'cut';

/** One tool result in a ledger record: how it was shown and what it cost as shown. */
export interface RequestResult {
  toolCallId: string;
  toolName: string;
  /** Where it is stored (a preview's or a pointer's path); absent when it is not stored. */
  path?: string;
  shownAs: ShownAs;
  /** Its estimated tokens as shown. */
  tokens: number;
}

/**
 * A request's estimated tokens by part; they sum to its `tokens`. `system` holds the system prompt
 * and the tool specs; `messages` every message text and tool call's arguments but the tool results,
 * which count in `whole`, `previews`, `pointers` or `cut` by how they were shown.
 */
export interface RequestParts {
  system: number;
  messages: number;
  whole: number;
  previews: number;
  pointers: number;
  cut: number;
}

/** One model request in a thread's context ledger: what it carried, measured; never any of its text. */
export interface RequestRecord {
  threadId: string;
  /** The thread's model requests counted from 1, across turns and runtimes. */
  step: number;
  /** When, in ms since 1970. */
  at: number;
  /** The request's estimated tokens, measured as the context budget measures it (C1). */
  tokens: number;
  /** What the same request would have carried without the offload (every result whole). */
  tokensWithoutOffload: number;
  /** The context budget's maxRequestTokens, when one is set. */
  budget?: number;
  parts: RequestParts;
  results: RequestResult[];
  /** What the provider said the request cost, in its own tokens, added when the reply arrived (`recordUsage`). */
  reported?: ReportedUsage;
  /**
   * The budget's calibration (C9) this request was fitted with: the provider's tokens an estimated
   * one (at least 1). Absent when it was fitted to the estimate alone.
   */
  calibration?: number;
}

/**
 * What a provider reported one model request cost, counted by its own tokenizer (not the estimate):
 * the whole input, the part of it read from its prompt cache, and the reply. A count the provider
 * did not give is absent; a 0 it gave stays 0.
 */
export interface ReportedUsage {
  inputTokens: number;
  cachedInputTokens?: number;
  outputTokens?: number;
}

/** What `recordUsage` is given: the ledger record's thread and step, and what the provider reported for it. */
export interface UsageChange {
  threadId: string;
  step: number;
  reported: ReportedUsage;
}

/** A tool result cleared from a thread's requests (C2–C4): every later request shows its pointer instead. */
export interface ClearedResult {
  threadId: string;
  toolCallId: string;
  toolName: string;
  /** The path the pointer names; absent for a file tool's page (its pointer names the call to repeat, O11). */
  path?: string;
  /**
   * For a result without a path (a file tool's page): the key `resultKeyFor` gives its tool call id
   * and its text, so a reused call id never shows this pointer for another result (C4). A result
   * with a path is known by its path. Absent in a record written before it was kept.
   */
  textKey?: string;
  /** Exactly the text every later request of the thread shows instead of the result (at most 60 estimated tokens). */
  pointer: string;
  /** The result's estimated tokens as the tool returned it (whole): what the ledger counts without the offload. */
  tokens: number;
  /** The step (see RequestRecord) that first cleared it. */
  step: number;
  at: number;
}

/**
 * What one model request writes, in one atomic unit: its ledger record and the results it cleared
 * first. The store numbers the step; a result already cleared keeps its first record.
 */
export interface RequestChange {
  threadId: string;
  /** Tags the clearings, so an output Block of the turn takes them back (C7). */
  turnId?: string;
  at: number;
  record: Omit<RequestRecord, 'threadId' | 'step' | 'at'>;
  cleared: readonly Omit<ClearedResult, 'threadId' | 'step' | 'at'>[];
}

/** What `recordRequest` did: the step it numbered, and the thread's cleared results after it. */
export interface RecordedRequest {
  step: number;
  cleared: ClearedResult[];
}

/** What `requests` reads besides a thread's whole ledger. */
export interface RequestsOptions {
  /**
   * Only the records of later steps (step > after): what a reader such as the inspector has not
   * read yet, told by 'request' events, so a ledger of 10,000 records is not read again at every
   * step. A custom store may ignore it and answer with the whole ledger (callers filter).
   */
  after?: number;
  /**
   * Only the newest that many records (of those after `after`), read from the newest down: what
   * a reader that wants the thread's latest request reads, not the ledger. A custom store may
   * ignore it and answer with more (callers take the newest).
   */
  newest?: number;
}

/** What `readLines` returns: the lines asked for and the text's line count. */
export interface LinesRead {
  text: string;
  totalLines: number;
}

/** What `settle` deletes besides the named turns' undo data and staged leftovers. */
export interface SettleOptions {
  /**
   * Staged results created (`createdAt`) before this time, whatever turn staged them: orphans of a
   * tab that closed or crashed mid-turn. The undo copies of turns that last changed the store before
   * it go too (what those turns stored stays undoable). The middleware passes an hour ago.
   */
  stagedBefore?: number;
  /**
   * The named turns' runs ended but the turns may still go on (a failed run that `recover` may
   * continue): only what they evicted is deleted for good, and what they staged but never
   * committed; `restoreTurn` still takes back what they stored. Default false: forget them entirely.
   */
  continuing?: boolean;
}

/**
 * The UTF-8 bytes a store holds for a thread, by why it holds them: live entries (`totalBytes`),
 * texts evicted by turns that may still be blocked (undo copies, O8), and staged texts not yet
 * committed (or whose commit failed for a full quota, S3).
 */
export interface HeldText {
  /** Bytes of the thread's live entries (its `totalBytes`). */
  live: number;
  /** Bytes of texts evicted by turns that may still be blocked, kept to put them back (O8). */
  undo: number;
  /** Bytes of texts staged and not committed (or whose commit failed for a full quota, S3). */
  staged: number;
}

/** What `list` and `evictions` read besides a thread's whole list. */
export interface ListOptions {
  /**
   * Only the records of these keys (with a thread given): what change events named, so a reader
   * such as the inspector reads what changed instead of the whole thread — a key's live entry for
   * `list` (left out when it has none), every eviction record of the key for `evictions`. A custom
   * store may ignore it and answer with the whole thread (callers filter).
   */
  keys?: readonly string[];
}

/**
 * The store as an app and the inspector see it: what is stored, what was evicted and why, the
 * totals, and a change feed; every method only reads. The offload writes through the wider
 * WritableOffloadStore, which the built-in stores implement.
 */
export interface OffloadStore extends Partial<Pick<ContextLedgerStore, 'requests' | 'cleared'>> {
  /** Entries, oldest first; all threads when no thread is given; with `keys`, only those of the thread. */
  list(threadId?: string, options?: ListOptions): Promise<StoredResultInfo[]>;
  /**
   * The stored text; throws a BackendError 'evicted' or 'not-found' (the built-in stores throw a
   * StoreReadError, which carries why as data: the key's latest eviction record, or what is
   * malformed in a result stored but unreadable). A result whose commit failed for a full quota
   * (S3) is read from its staged text, so the path its preview names stays readable; it is in no
   * list or total.
   */
  read(threadId: string, key: string): Promise<string>;
  /**
   * The eviction log, oldest first; all threads when no thread is given; with `keys`, only the
   * records of those keys of the thread (read through the key, not the whole log).
   */
  evictions(threadId?: string, options?: ListOptions): Promise<EvictionRecord[]>;
  /** The UTF-8 bytes of the thread's live entries (0 for a thread never written). */
  totalBytes(threadId: string): Promise<number>;
  /**
   * The bound the thread is held to: the smallest maxTotalBytes of the agents that committed to it
   * (O3), kept with the thread, also after a clear. Undefined when the store does not know it: no
   * commit to the thread yet, or its record was found malformed (skipped and reported, S2).
   * Optional for custom stores: without it (or with undefined) the inspector's gauge falls back to
   * its `bound` option.
   */
  bound?(threadId: string): Promise<number | undefined>;
  /**
   * Calls `listener` with each change once it is kept (`stored`, `evicted`, `restored`, `failed`,
   * with the thread's total after it; `request`, a ledger record); returns how to stop. A listener
   * that throws harms no other.
   */
  subscribe(listener: (event: StoreEvent) => void): () => void;
  /**
   * Results that could not be stored (a full quota, a store error: each was cut with a note instead,
   * and the run went on, S3), oldest first; all threads when no thread is given.
   */
  failures(threadId?: string): Promise<StoreFailure[]>;
  /**
   * Records found malformed, of one thread (or all): they are skipped by every read and listed
   * here, with their keys, for the inspector (S2). Optional for custom stores.
   */
  unreadable?(threadId?: string): Promise<UnreadableRecord[]>;
  /** Releases what the store holds open (a database connection, a channel); a later call reopens. Optional. */
  close?(): Promise<void>;
}

/**
 * The write protocol the offload runs against a store: what a custom store implements besides the
 * reads. A result is staged (written where no reader sees it) before the model is shown its path,
 * then made live by a commit that evicts, in the same atomic unit, until the thread fits its bound
 * (S1, O3); a turn's changes can be undone by an output Block until the turn settles (O8). Each
 * method is one atomic unit (one transaction in a persistent store). `storeContract` in
 * `tool-output-offload/testing` checks every rule below against a store.
 */
export interface WritableOffloadStore extends Omit<OffloadStore, 'requests' | 'cleared'>, ContextLedgerStore {
  /**
   * Lines [offset, offset + limit) of the stored text, 0-based, with their newlines ('' past the
   * end; no limit reads to the end), and how many lines the text has (a last line without a
   * newline counts). Reads only the part of the text that holds them (limit 0 reads none): the file
   * tools page through stored results with it. Throws, and falls back to a staged text, like `read`;
   * a bad offset or limit is a RangeError naming it.
   */
  readLines(threadId: string, key: string, offset: number, limit?: number): Promise<LinesRead>;
  /** Optional: the stored text as the chunks it is kept in, in order, not joined (grep searches them one by one); throws like `read`. */
  readChunks?(threadId: string, key: string): Promise<string[]>;
  /**
   * Optional: the bytes held for the thread, live, kept to undo a turn and staged (HeldText), so a
   * test or an app can see that undo copies and staged texts go when their turns end. The built-in
   * stores have it; `storeContract` checks it where a store has it.
   */
  heldText?(threadId: string): Promise<HeldText>;
  /**
   * The result `offloadResult` stored under `key` (a commit with `seen`), whether or not it is still
   * live; undefined when there is none (A1, A2). The store keeps these for at least a thread's
   * newest 10,000 results, apart from the eviction log's retention.
   */
  seen(threadId: string, key: string): Promise<SeenResult | undefined>;
  /**
   * Writes a result's text where no reader sees it yet (no list, total or read shows it), before
   * the model is shown its path; staging a key again replaces its staged text, never its live one.
   * Checks every field as reads will (a bad one is a TypeError naming it). May throw
   * QuotaExceededError, and the offload then cuts the result instead of naming that path (S3).
   */
  stage(result: StagedResult): Promise<void>;
  /**
   * Makes a staged result live, drops entries, or expires them (StoreChange). A commit replaces the
   * key's own older entry (reason 'replaced') and evicts the oldest (reason 'bound') until the
   * thread fits the smallest maxTotalBytes any commit to it gave (O3); a result larger than that
   * is a RangeError. A commit whose staged text is missing (already committed, or never staged)
   * changes nothing. A commit refused for a full quota is retried after evicting the thread's
   * oldest entry (reason 'quota', its text deleted to free room; each eviction its own
   * transaction) until it goes through or nothing is left to evict; then the QuotaExceededError
   * is thrown, and the staged text stays, so reads of the key are served from it once the failure
   * is reported (S3). Each eviction is logged and told as an 'evicted' event.
   */
  apply(change: StoreChange): Promise<AppliedChange>;
  /**
   * Undoes everything the turn did (O8): its entries go (reason 'blocked'), what it evicted comes
   * back, what it staged and never committed is deleted, the results its requests cleared are
   * cleared no more (C7; its ledger records stay: those requests were sent). Another writer may
   * have committed since, so the oldest entries are then evicted (reason 'bound') until the thread
   * fits `maxTotalBytes` again — in the same transaction. Undoing a turn twice changes nothing.
   */
  restoreTurn(threadId: string, turnId: string, maxTotalBytes: number): Promise<void>;
  /**
   * Forgets how to undo the named turns, which have finished: what they evicted is deleted for
   * good, and so is what they staged but never committed (except a result whose commit failed and
   * was reported, which still serves reads until the thread is cleared). Other turns, maybe still
   * running in another agent, are left alone. With `continuing`, what they stored can still be
   * taken back by `restoreTurn`, and so can its clearings; with `stagedBefore`, staged orphans
   * older than it go too.
   */
  settle(threadId: string, turnIds: readonly string[], options?: SettleOptions): Promise<void>;
  /**
   * Records a result that could not be stored (S3; the offload calls it when `stage` or a commit
   * threw), tells a 'failed' event once it is kept, and keeps it in this instance when its own write
   * fails too. The thread keeps its newest failures (a retention, like the eviction log).
   */
  reportFailure(failure: StoreFailure): Promise<void>;
  /**
   * Deletes a thread's entries, staged texts, undo data, seen results, failures, cleared results and
   * ledger, and starts its step count again (the next request is step 1). The eviction
   * log keeps one record a key (reason 'cleared') for what was live or logged, so a read of it says
   * it was cleared. Subscribers hear an 'evicted' event (total 0) for each key it cleared anything
   * of (entry, eviction log, failure, staged text), and none when there was nothing to clear.
   */
  clearThread(threadId: string): Promise<void>;
}

/**
 * The context ledger a store keeps (C4, C7): the results the context budget cleared and one record
 * per model request. A WritableOffloadStore keeps one; the inspector reads `requests` and `cleared`
 * where a store has them. The offload uses it only with its `ledger` option (contextLedger, from
 * `tool-output-offload/context`), and checks then, once, that the store has it.
 */
export interface ContextLedgerStore {
  /**
   * The results cleared from the thread's requests (C4): oldest first by the step that cleared
   * them, those of one step in the order its change gave them.
   */
  cleared(threadId: string): Promise<ClearedResult[]>;
  /**
   * The thread's context ledger, oldest first (by step); with `after`, only the records of later
   * steps. Each record holds only RequestRecord's fields (no text).
   */
  requests(threadId: string, options?: RequestsOptions): Promise<RequestRecord[]>;
  /**
   * Records one model request (RequestChange), in one atomic unit: numbers it (the thread's step
   * counter + 1, kept with the thread, so steps count across turns, instances and tabs), keeps its
   * ledger record (the thread's newest `requestRetention`, default 10,000) and the results it
   * cleared (a toolCallId cleared before keeps its first record, C4); tells a 'request' event once
   * kept. With `turnId`, its clearings are taken back by `restoreTurn` of that turn (C7) until the
   * turn settles. Checks every field (a bad one is a TypeError naming it) and keeps only the
   * fields it knows. Returns the step and all of the thread's cleared results after it.
   */
  recordRequest(change: RequestChange): Promise<RecordedRequest>;
  /**
   * Adds what the provider reported to one ledger record, when the reply arrives, in one atomic
   * unit (replacing what was reported for that step before), and tells a 'request' event for the
   * step once kept. False when the thread has no record of that step (past the retention, or the
   * thread was cleared since). Checks every field (a bad one is a TypeError naming it).
   */
  recordUsage(change: UsageChange): Promise<boolean>;
}
