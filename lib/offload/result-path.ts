/** Where stored results appear in a CompositeBackend, and how a path names one of them. */
export const offloadMount = '/large_tool_results/' as const;

/** The state key the offload writes. */
export const offloadKey = 'toolOutputOffload' as const;

/**
 * The full path a result is read back from: `/large_tool_results/<key>`. A key has the shape of the
 * runtime's idempotency keys (`isIdempotencyKey`): in the runtime it is one (O2), and `offloadResult`
 * builds its keys to that shape (A1).
 */
export function resultPath(key: string): string {
  return `${offloadMount}${key}`;
}

/** Whether a path (as a tool was given it) lies in the mount, so reading it must never be offloaded again (O11). */
function isUnderMount(path: string): boolean {
  const collapsed = path.trim().replace(/\/{2,}/g, '/');
  return collapsed === offloadMount.slice(0, -1) || collapsed.startsWith(offloadMount);
}

/** Every string a tool call's arguments hold at the top level or one level down (e.g. `{ path }`, `{ files: [..] }`). */
function argumentStrings(args: unknown): string[] {
  if (typeof args === 'string') return [args];
  if (typeof args !== 'object' || args === null) return [];
  const values = Array.isArray(args) ? args : Object.values(args);
  return values.flatMap((value) =>
    typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [],
  );
}

/**
 * Whether a call reads from the mount (any path-like argument under it): how a tool other than the
 * file tools (whose pages are capped whatever their arguments, cut.ts) is kept from storing a read again.
 */
export function readsFromMount(args: unknown): boolean {
  return argumentStrings(args).some(isUnderMount);
}
