import { useId, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { clip } from './format.js';
import { PICKER_ROW_HEIGHT } from './styles.js';
import { useVirtualizer } from './use-virtualizer.js';

interface ThreadPickerProps {
  threads: readonly string[];
  /** The thread filtered on; '' for all threads. */
  value: string;
  onChange(threadId: string): void;
}

const ALL = 'All threads';

/** The threads whose id holds `query` (any case), after the "all threads" choice (''). */
function choicesFor(threads: readonly string[], query: string): string[] {
  const needle = query.trim().toLowerCase();
  const found = needle === '' ? threads : threads.filter((id) => id.toLowerCase().includes(needle));
  return ['', ...found];
}

interface ChoiceListProps {
  id: string;
  choices: readonly string[];
  value: string;
  activeIndex: number;
  optionId(index: number): string;
  onChoose(threadId: string): void;
}

/** The open list: virtualized, so only the choices in view are in the DOM (1,000 threads stay cheap). */
function ChoiceList({ id, choices, value, activeIndex, optionId, onChoose }: ChoiceListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer(choices.length, PICKER_ROW_HEIGHT, scrollRef);
  useLayoutEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [virtualizer, activeIndex]);
  return (
    <div class="picker-list" id={id} role="listbox" aria-label="Threads" ref={scrollRef}>
      <div class="picker-sizer" role="presentation" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {virtualizer.getVirtualItems().map((item) => {
          const threadId = choices[item.index]!;
          const text = threadId === '' ? ALL : clip(threadId, 80);
          return (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the combobox input handles the keys (aria-activedescendant)
            <div
              key={threadId}
              id={optionId(item.index)}
              role="option"
              tabIndex={-1}
              aria-selected={threadId === value}
              aria-setsize={choices.length}
              aria-posinset={item.index + 1}
              class={item.index === activeIndex ? 'picker-option active' : 'picker-option'}
              style={{ transform: `translateY(${item.start}px)` }}
              title={text}
              // Keeps focus in the input, so choosing does not first close the list on blur.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => onChoose(threadId)}
            >
              {text}
            </div>
          );
        })}
      </div>
      {choices.length === 1 && <div class="picker-none">No thread matches.</div>}
    </div>
  );
}

/**
 * The thread filter: a combobox (ARIA 1.2 pattern) whose list exists only while it is open, and
 * then only for the threads in view among those matching what was typed. A `<select>` of 1,000
 * threads made the panel's first render one long task.
 */
export function ThreadPicker({ threads, value, onChange }: ThreadPickerProps) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  // The active choice is a thread, not a position: it stays on its thread as threads arrive.
  // undefined after typing: the first match.
  const [active, setActive] = useState<string | undefined>(value);
  const listId = useId();
  const choices = useMemo(() => (open ? choicesFor(threads, query) : []), [open, threads, query]);
  const found = active === undefined ? -1 : choices.indexOf(active);
  const activeIndex = found >= 0 ? found : choices.length > 1 && query.trim() !== '' ? 1 : 0;
  const optionId = (index: number) => `${listId}-option-${index}`;

  const openList = () => {
    setOpen(true);
    setQuery('');
    setActive(value);
  };
  const close = () => {
    setOpen(false);
    setQuery('');
  };
  const choose = (threadId: string) => {
    onChange(threadId);
    setActive(threadId);
    close();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    if (step !== 0) {
      event.preventDefault();
      if (!open) return openList();
      const next = Math.min(choices.length - 1, Math.max(0, activeIndex + step));
      setActive(choices[next]!);
      return;
    }
    if (!open) return;
    if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      setActive(choices[event.key === 'Home' ? 0 : choices.length - 1]!);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const threadId = choices[activeIndex];
      if (threadId !== undefined) choose(threadId);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close();
    }
  };

  return (
    <div class="picker">
      <input
        type="text"
        role="combobox"
        aria-label="Filter by thread"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-activedescendant={open && activeIndex >= 0 ? optionId(activeIndex) : undefined}
        autoComplete="off"
        spellcheck={false}
        placeholder={open ? 'Find a thread…' : ALL}
        value={open ? query : clip(value, 80)}
        title={value === '' ? ALL : clip(value, 2000)}
        onInput={(event) => {
          setOpen(true);
          setQuery(event.currentTarget.value);
          setActive(undefined);
        }}
        onClick={() => open || openList()}
        onKeyDown={onKeyDown}
        onBlur={close}
      />
      {open && (
        <ChoiceList
          id={listId}
          choices={choices}
          value={value}
          activeIndex={activeIndex}
          optionId={optionId}
          onChoose={choose}
        />
      )}
    </div>
  );
}
