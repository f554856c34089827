/** Where stored results appear in a CompositeBackend, and how a path names one of them. */
export const offloadMount = '/large_tool_results/' as const;

/** The state key the offload writes. */
export const offloadKey = 'toolOutputOffload' as const;

/** The runtime's idempotency keys are path-safe and short (R9); anything else cannot name a file. */
const resultKeyPattern = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidResultKey(key: unknown): key is string {
  return typeof key === 'string' && resultKeyPattern.test(key);
}

/** Why a key cannot name a stored result, for error messages; undefined when it can. */
export function resultKeyProblem(key: unknown): string | undefined {
  if (isValidResultKey(key)) return undefined;
  if (typeof key !== 'string') return `the idempotency key is ${key === null ? 'null' : typeof key}, not a string`;
  if (key.length === 0) return 'the idempotency key is empty';
  if (key.length > 64) return `the idempotency key is ${key.length} characters long (at most 64)`;
  return `the idempotency key ${JSON.stringify(key)} has characters other than A-Z a-z 0-9 _ -`;
}

/** The full path a result is read back from: `/large_tool_results/<key>`. */
export function resultPath(key: string): string {
  return `${offloadMount}${key}`;
}

/** Whether a path (as a tool was given it) lies in the mount, so reading it must never be offloaded again (O11). */
export function isUnderMount(path: string): boolean {
  const collapsed = path.trim().replace(/\/{2,}/g, '/');
  return collapsed === offloadMount.slice(0, -1) || collapsed.startsWith(offloadMount);
}

/** Every string a tool call's arguments hold at the top level or one level down (e.g. `{ path }`, `{ files: [..] }`). */
export function argumentStrings(args: unknown): string[] {
  if (typeof args === 'string') return [args];
  if (typeof args !== 'object' || args === null) return [];
  const values = Array.isArray(args) ? args : Object.values(args);
  return values.flatMap((value) =>
    typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [],
  );
}

/**
 * Whether a call reads from the mount (any path-like argument under it): how a tool other than the
 * file tools (which are capped whatever their arguments, page-cap.ts) is kept from storing a read again.
 */
export function readsFromMount(args: unknown): boolean {
  return argumentStrings(args).some(isUnderMount);
}

const pathInTextPattern = /\/large_tool_results\/([A-Za-z0-9_-]{1,64})(?![A-Za-z0-9_-])/g;

/** The result keys whose paths a text names, in order of first appearance. */
export function resultKeysInText(text: string): string[] {
  const keys = new Set<string>();
  for (const match of text.matchAll(pathInTextPattern)) keys.add(match[1]!);
  return [...keys];
}
