import { formatBytes } from '../inspector/format.js';
import {
  type ChangeNotice,
  type InspectorRequest,
  type InspectorResponse,
  PROTOCOL,
  parseNotice,
  parseRequest,
  parseResponse,
} from '../inspector/source/channel-protocol.js';
import { ExposedSides, PendingRequests } from '../inspector/source/pending-requests.js';
import { isAnswer, type ReadOpName } from '../inspector/source/read-ops.js';

/**
 * What crosses each hop of the extension: panel ⇄ service worker ⇄ content script ⇄ the page's
 * BroadcastChannel. The inspector's own messages (requests, responses, change notices) pass
 * through unchanged; a few control messages of the extension's own say who is connected. Every
 * hop checks what it receives: shape, size, and that a response answers a request it forwarded.
 */

export const PANEL_PORT = 'tool-output-offload/devtools-panel';
export const PAGE_PORT = 'tool-output-offload/content-script';
export const CONTROL = 'tool-output-offload/extension@1';

export const LIMITS = {
  /** The longest message (in JSON characters) a hop carries: at most 48 MiB of UTF-8, under Chrome's 64 MiB. */
  messageChars: 16 * 1024 * 1024,
  /** The longest request or control message: they carry ids and short texts only. */
  requestChars: 8 * 1024,
  /** Requests one hop keeps open at once (the panel asks one totalBytes per thread at a time). */
  inFlight: 2048,
  /** The longest reason, warning or origin a control message carries. */
  textChars: 1024,
} as const;

/** Panel → worker: route this port to the content script of tab `tabId`. */
interface Attach {
  protocol: typeof CONTROL;
  kind: 'attach';
  tabId: number;
}
/** Panel → worker, every few seconds: a message keeps an MV3 service worker from stopping while the panel is open. */
interface Ping {
  protocol: typeof CONTROL;
  kind: 'ping';
}
/** Content script → worker → panel: joined the page's channel. */
interface Ready {
  protocol: typeof CONTROL;
  kind: 'ready';
  origin: string;
}
/** Worker → panel: the page cannot be reached (yet); the panel retries. */
interface Detached {
  protocol: typeof CONTROL;
  kind: 'detached';
  reason: string;
}
/** Content script → worker → panel: something the user should know, e.g. two stores answering. */
interface Warning {
  protocol: typeof CONTROL;
  kind: 'warning';
  message: string;
}

type FromPanel = Attach | Ping | InspectorRequest;

export const control = {
  attach: (tabId: number): Attach => ({ protocol: CONTROL, kind: 'attach', tabId }),
  ping: (): Ping => ({ protocol: CONTROL, kind: 'ping' }),
  ready: (origin: string): Ready => ({ protocol: CONTROL, kind: 'ready', origin: clip(origin) }),
  detached: (reason: string): Detached => ({ protocol: CONTROL, kind: 'detached', reason: clip(reason) }),
  warning: (message: string): Warning => ({ protocol: CONTROL, kind: 'warning', message: clip(message) }),
};

function clip(text: string): string {
  return text.length <= LIMITS.textChars ? text : `${text.slice(0, LIMITS.textChars - 1)}…`;
}

/** The message's size as Chrome serializes it (JSON); Infinity for what JSON cannot carry. */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

type Fields = Record<string, unknown>;
const isFields = (data: unknown): data is Fields => typeof data === 'object' && data !== null;
const isText = (value: unknown): value is string => typeof value === 'string' && value.length <= LIMITS.textChars;

type Control = Attach | Ping | Ready | Detached | Warning;

function parseControl(data: unknown, kinds: readonly string[]): Control | undefined {
  if (!isFields(data) || data.protocol !== CONTROL || !kinds.includes(data.kind as string)) return undefined;
  if (jsonLength(data) > LIMITS.requestChars) return undefined;
  if (data.kind === 'attach' && Number.isSafeInteger(data.tabId) && (data.tabId as number) >= 0) {
    return control.attach(data.tabId as number);
  }
  if (data.kind === 'ping') return control.ping();
  if (data.kind === 'ready' && isText(data.origin)) return control.ready(data.origin);
  if (data.kind === 'detached' && isText(data.reason)) return control.detached(data.reason);
  if (data.kind === 'warning' && isText(data.message)) return control.warning(data.message);
  return undefined;
}

/** A request of the inspector's protocol, small enough to carry; anything else is undefined. */
export function parseSmallRequest(data: unknown): InspectorRequest | undefined {
  return jsonLength(data) <= LIMITS.requestChars ? parseRequest(data) : undefined;
}

/** What the worker accepts from a panel's port. */
export function parseFromPanel(data: unknown): FromPanel | undefined {
  return (parseControl(data, ['attach', 'ping']) as Attach | Ping | undefined) ?? parseSmallRequest(data);
}

/** Control messages and notices from the content script (responses go through a ledger). */
export function parseControlFromPage(data: unknown): Ready | Warning | ChangeNotice | undefined {
  return (parseControl(data, ['ready', 'warning']) as Ready | Warning | undefined) ?? parseNotice(data);
}

/** Control messages and notices from the worker (responses go through a ledger). */
export function parseControlFromWorker(data: unknown): Ready | Warning | Detached | ChangeNotice | undefined {
  return (
    (parseControl(data, ['ready', 'warning', 'detached']) as Ready | Warning | Detached | undefined) ??
    parseNotice(data)
  );
}

export function errorResponse(id: string, name: string, message: string): InspectorResponse {
  return { protocol: PROTOCOL, kind: 'response', id, ok: false, error: { name, message } };
}

/** How long a hop remembers a request it forwarded when no deadline of its own is given. */
const FORGET_AFTER_MS = 60_000;

interface LedgerOptions {
  /** How long a request may wait for its answer; default one minute, then it is forgotten. */
  timeoutMs?: number;
  /** Called with the id of a request that waited `timeoutMs` in vain (it is closed). */
  onTimeout?(id: string): void;
}

/**
 * The requests one hop forwarded and has not seen answered. Only their responses pass, checked:
 * a response too large to carry or of the wrong shape becomes an error response, so the panel
 * learns why instead of waiting; a response nobody asked for (pushed) is dropped. A request the
 * panel sends again is forwarded again only once after each reconnect this hop saw (a store
 * exposed anew, the page's content script ready again): a flood of forged "exposed" notices makes
 * no hop ask the page again.
 */
export class RequestLedger {
  readonly #open: PendingRequests<ReadOpName>;
  readonly #sides = new ExposedSides();

  constructor(
    /** Names this hop in error messages. */
    private readonly hop: string,
    options: LedgerOptions = {},
  ) {
    this.#open = new PendingRequests(options.timeoutMs ?? FORGET_AFTER_MS, (id) => options.onTimeout?.(id));
  }

  /**
   * What to do with a request from the panel: 'send' it (recorded; one already open gets its
   * whole time again), 'drop' it (open, and forwarded again already since the last reconnect), or
   * send back the error response returned when too many are open.
   */
  open(request: InspectorRequest): InspectorResponse | 'send' | 'drop' {
    if (this.has(request.id)) {
      if (!this.#open.claimResend(request.id)) return 'drop';
    } else if (this.#open.size >= LIMITS.inFlight) {
      return errorResponse(request.id, 'RangeError', `${this.hop}: over ${LIMITS.inFlight} requests in flight`);
    }
    this.#open.add(request.id, request.op);
    return 'send';
  }

  /**
   * Hears a notice on its way to the panel: false for an "exposed" notice of a side already heard
   * (drop it: a repeat, or forged); one of a side not heard before is a reconnect.
   */
  hear(notice: ChangeNotice): boolean {
    if (notice.events !== 0) return true;
    if (!this.#sides.isNew(notice)) return false;
    this.#open.reconnected();
    return true;
  }

  /** The next hop connected again (e.g. the content script is ready): what is open may be forwarded once more. */
  reconnected(): void {
    this.#open.reconnected();
  }

  /** True when `id` names an open request. */
  has(id: string): boolean {
    return this.#open.get(id) !== undefined;
  }

  /**
   * The checked response when `data` answers an open request (which it closes), else undefined.
   */
  settle(data: unknown): InspectorResponse | undefined {
    const response = parseResponse(data);
    const op = response && this.#open.take(response.id);
    if (!response || !op) return undefined;
    const length = jsonLength(response);
    if (length > LIMITS.messageChars) {
      return errorResponse(
        response.id,
        'RangeError',
        `The answer to ${op} is ${formatBytes(length)} of JSON, over the ${formatBytes(LIMITS.messageChars)} ` +
          `the devtools extension carries (${this.hop}); read it with the in-page inspector instead`,
      );
    }
    if (response.ok && !isAnswer(op, response.value)) {
      return errorResponse(response.id, 'TypeError', `${this.hop}: the answer to ${op} has the wrong shape`);
    }
    return response;
  }

  /** Error responses for every open request, which are closed (e.g. the next hop went away). */
  failAll(message: string): InspectorResponse[] {
    return this.#open.takeAll().map(([id]) => errorResponse(id, 'Error', message));
  }
}
