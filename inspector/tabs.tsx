import { formatCount } from './format.js';

export type TabId = 'entries' | 'evictions' | 'context' | 'failures' | 'unreadable';

const labels: Record<TabId, string> = {
  entries: 'Entries',
  evictions: 'Evictions',
  context: 'Context',
  failures: 'Not stored',
  unreadable: 'Unreadable',
};

interface TabsProps {
  current: TabId;
  onChange(tab: TabId): void;
  /** Each tab's count, shown after its label; a tab without one (Context) shows none. */
  counts: Partial<Record<TabId, number>>;
  /**
   * The tabs shown: entries, evictions and context always; failures once the store reports a result it
   * could not keep, unreadable once it reports a record it skipped.
   */
  tabs: readonly TabId[];
}

/** The panel's views; arrow keys move between tabs (the ARIA tabs pattern). */
export function Tabs({ current, onChange, counts, tabs }: TabsProps) {
  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.indexOf(current);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = tabs[(index + step + tabs.length) % tabs.length]!;
    onChange(next);
    const list = event.currentTarget as HTMLElement;
    list.querySelector<HTMLElement>(`#tab-${next}`)?.focus();
  };
  return (
    <div class="tabs" role="tablist" aria-label="Inspector views" onKeyDown={onKeyDown}>
      {tabs.map((tab) => (
        <button
          key={tab}
          type="button"
          role="tab"
          id={`tab-${tab}`}
          aria-selected={tab === current}
          aria-controls={`panel-${tab}`}
          tabIndex={tab === current ? 0 : -1}
          onClick={() => onChange(tab)}
        >
          {labels[tab]}
          {counts[tab] === undefined ? '' : ` (${formatCount(counts[tab])})`}
        </button>
      ))}
    </div>
  );
}
