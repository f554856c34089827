// How long the main thread is blocked while some work runs: 'longtask' entries (50 ms and more) and
// the longest gap in a timer chain (shorter blocks too).

/** How long the main thread was blocked while `work` ran. */
export interface Blocking {
  /** The longest 'longtask' entry (the API reports tasks of 50 ms or more), 0 when none. */
  longestTask: number;
  longTasks: number;
  /** The longest gap between the ticks of a timer chain: bounds the longest task even under 50 ms. */
  longestGap: number;
  ms: number;
}

export async function blockingWhile(work: () => Promise<void>): Promise<Blocking> {
  // Let the caller's task end first: work it did before this call (making the text pool) is not measured.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ type: 'longtask', buffered: true });
  let ticking = true;
  let last = performance.now();
  let longestGap = 0;
  let end = Number.POSITIVE_INFINITY;
  const tick = () => {
    const now = performance.now();
    // The chain runs on while late 'longtask' entries arrive; a gap that begins after the work ended is not the work's.
    if (last <= end) longestGap = Math.max(longestGap, now - last);
    last = now;
    if (ticking) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const start = performance.now();
  await work();
  end = performance.now();
  // Long task entries arrive after their task ended.
  await new Promise((resolve) => setTimeout(resolve, 200));
  ticking = false;
  entries.push(...observer.takeRecords());
  observer.disconnect();
  const during = entries.filter((task) => task.startTime + task.duration >= start && task.startTime <= end);
  const longestTask = Math.max(0, ...during.map((task) => task.duration));
  return { longestTask, longTasks: during.length, longestGap, ms: end - start };
}

export const longest = (b: Blocking) => Math.max(b.longestTask, b.longestGap);
