import { type ContentPart, type FilePage, toContent } from '../shared/content.js';

/** Values for state keys, by key: applied through each key's `apply` (R8); a middleware may write only its own `writes` (R7). */
export type StateUpdate = Readonly<Record<string, unknown>>;

/**
 * How a tool call ended: a success (its content and maybe a state update), an error the model is
 * told, a pause for the app's approval (R6), or a fatal error that fails the run.
 */
export type ToolOutcome =
  | {
      type: 'success';
      content: ContentPart[];
      update?: StateUpdate;
      /**
       * The file tools' page this content prints, as data, for a middleware to cut by its lines;
       * a middleware that changes the content of such a result leaves it out.
       */
      page?: FilePage;
    }
  /** A failed call: `message` is what the model reads; a middleware may carry an update with it (a commit of what it stored of the error). */
  | { type: 'error'; message: string; update?: StateUpdate }
  | { type: 'needs-approval'; reason: string }
  | { type: 'fatal'; reason: string };

/** What a tool's `execute` may return: plain text, content parts, or a full outcome. */
export type ToolResult = string | ContentPart[] | ToolOutcome;

/** Makes each kind of ToolOutcome; `success` takes a text or content parts. */
export const ToolOutcome = {
  success(content: string | ContentPart[], update?: StateUpdate): ToolOutcome {
    const outcome: ToolOutcome = { type: 'success', content: toContent(content, 'ToolOutcome.success content') };
    return update ? { ...outcome, update } : outcome;
  },
  error(message: string): ToolOutcome {
    return { type: 'error', message };
  },
  needsApproval(reason: string): ToolOutcome {
    return { type: 'needs-approval', reason };
  },
  fatal(reason: string): ToolOutcome {
    return { type: 'fatal', reason };
  },
};

const outcomeTypes: ReadonlySet<string> = new Set<ToolOutcome['type']>(['success', 'error', 'needs-approval', 'fatal']);

/** Whether `value` is shaped as a ToolOutcome: an object whose `type` is one of the four outcome types. */
export function isToolOutcome(value: unknown): value is ToolOutcome {
  return typeof value === 'object' && value !== null && outcomeTypes.has((value as { type?: unknown }).type as string);
}

/** Normalises whatever a tool returned into an outcome; a malformed result becomes an error outcome. */
export function toOutcome(result: unknown, toolName: string): ToolOutcome {
  if (typeof result === 'string' || Array.isArray(result)) {
    try {
      return { type: 'success', content: toContent(result, `result of tool "${toolName}"`) };
    } catch (e) {
      return { type: 'error', message: (e as Error).message };
    }
  }
  if (isToolOutcome(result)) {
    const outcome = result;
    if (outcome.type !== 'success') return outcome;
    try {
      return { ...outcome, content: toContent(outcome.content, `result of tool "${toolName}"`) };
    } catch (e) {
      return { type: 'error', message: (e as Error).message };
    }
  }
  return {
    type: 'error',
    message: `tool "${toolName}" returned ${result === null ? 'null' : typeof result}; expected a string, content parts or a ToolOutcome`,
  };
}
