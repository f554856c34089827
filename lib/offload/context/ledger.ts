import type { OffloadStore } from '../../store/offload-store.js';
import { ShownTexts } from '../shown-texts.js';
import { ContextFitter, type FitterOptions } from './fit.js';
import {
  type ContextRequest,
  type FittedContext,
  type ResolvedContextBudget,
  resolveContextBudget,
} from './request.js';

// The context budget and the ledger as one piece an app imports only when it uses them
// (`tool-output-offload/context`): without it, ToolOutputOffload loads neither the plan, the
// clearing, the pointers nor the ledger's queue, and `fitContext` sends every request as it is.

/**
 * What ToolOutputOffload's `ledger` option takes: `contextLedger`, from
 * `tool-output-offload/context`. It fits each model request to the `contextBudget` (C1–C7) and
 * records it in the store's context ledger, which the inspector's Context tab draws.
 */
export interface ContextLedger {
  /** Makes one ToolOutputOffload's fitting pipeline (its token cache and its ledger's queue); its constructor calls it once. */
  readonly fitterFor: (options: FitterOptions) => { fit(request: ContextRequest): Promise<FittedContext> };
  /** Checks the `contextBudget` option and fills in its defaults; its constructor calls it once. */
  readonly resolveBudget: (budget: unknown) => ResolvedContextBudget | undefined;
  /** Makes the record of what the offload showed instead of results, which the fitting reads; its constructor calls it once. */
  readonly shownTexts: (store: OffloadStore) => ShownTexts;
}

/**
 * The context budget and ledger, for `new ToolOutputOffload({ ledger: contextLedger, contextBudget })`:
 * each model request a way in fits is measured and recorded in the store's ledger (the inspector's
 * Context tab), and with a `contextBudget` its oldest tool results are cleared to fit it.
 */
export const contextLedger: ContextLedger = Object.freeze({
  fitterFor: (options: FitterOptions) => new ContextFitter(options),
  resolveBudget: resolveContextBudget,
  shownTexts: (store: OffloadStore) => new ShownTexts(store),
});
