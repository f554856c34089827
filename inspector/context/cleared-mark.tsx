import { formatCount } from '../format.js';

/**
 * "Cleared from the context since step N": the thread's requests carry a pointer to the path
 * instead of the result (C2, C4). `short` shows only "cleared" (the rest is read out and in the title).
 */
export function ClearedMark({ step, short }: { step: number; short?: boolean }) {
  const rest = ` from the context since step ${formatCount(step)}`;
  return (
    <span class="cleared-mark" title={`cleared${rest}: the model is sent a pointer to this path instead`}>
      cleared
      <span class={short ? 'visually-hidden' : undefined}>{rest}</span>
    </span>
  );
}
