import { useRef, useState } from 'preact/hooks';
import { ClearedMark } from '../context/cleared-mark.js';
import { clip, formatBytes, formatCount, formatTime } from '../format.js';
import { ProblemMark } from '../problem-mark.js';
import type { EntryRow, EvictionRow } from '../source/records.js';
import type { PanelSource } from '../source/source.js';
import { useStoredText } from '../source/use-store.js';
import { TextPager } from './text-pager.js';

/** What the panel knows of the selected entry: the entry as last listed, or its eviction. */
export interface Selected {
  threadId: string;
  key: string;
  path: string;
  entry?: EntryRow;
  eviction?: EvictionRow;
}

interface EntryDetailProps {
  source: PanelSource;
  selected: Selected;
  /** The entry as the store lists it now; undefined once it is gone. */
  live: EntryRow | undefined;
  /** The key's latest eviction, if any. */
  eviction: EvictionRow | undefined;
  now: number;
  /** The step since which its result is cleared from the thread's requests, if it is. */
  clearedSince?: number;
  onClose(): void;
}

async function writeClipboard(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard?.writeText) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Selects an element's text so the user can copy it by hand when the clipboard API fails. */
function selectContents(element: Element | null): void {
  const selection = element?.ownerDocument.defaultView?.getSelection();
  if (element && selection) selection.selectAllChildren(element);
}

/**
 * Characters of a preview shown: far above any preview the offload writes (it is within the
 * token threshold), so only a damaged or foreign record is cut; "Copy preview" copies all of it.
 */
const PREVIEW_CHARS = 200_000;

/** Exactly the preview the model was shown, beside the stored text (read on demand, paged). */
export function EntryDetail({ source, selected, live, eviction, now, clearedSince, onClose }: EntryDetailProps) {
  const info = live ?? selected.entry;
  const toolName = info?.toolName ?? eviction?.toolName;
  const text = useStoredText(source, selected, live ? live.seq : -1);
  const [message, setMessage] = useState('');
  const pathRef = useRef<HTMLSpanElement>(null);
  const previewRef = useRef<HTMLPreElement>(null);

  const copy = async (what: 'path' | 'preview', value: string, element: Element | null) => {
    if (await writeClipboard(value)) {
      setMessage(`Copied the ${what}.`);
    } else {
      selectContents(element);
      setMessage(`Could not use the clipboard here: the ${what} is selected, press Ctrl+C (⌘C) to copy it.`);
    }
  };

  return (
    <section class="detail" aria-label={`Details of ${clip(selected.path, 200)}`}>
      <div class="detail-head">
        <ProblemMark problems={info?.problems} />
        <span class="path" ref={pathRef}>
          {clip(selected.path, 2000)}
        </span>
        <button type="button" onClick={() => copy('path', selected.path, pathRef.current)}>
          Copy path
        </button>
        <button
          type="button"
          disabled={!info}
          onClick={() => info && copy('preview', info.preview, previewRef.current)}
        >
          Copy preview
        </button>
        <button type="button" onClick={onClose} aria-label="Close details">
          ✕
        </button>
      </div>
      <div class="facts">
        <span>thread {clip(selected.threadId)}</span>
        {toolName !== undefined && <span>tool {clip(toolName)}</span>}
        {info && (
          <span>
            {formatBytes(info.bytes)} stored
            {info.truncated ? `, cut from ${formatBytes(info.originalBytes)}` : ''}
          </span>
        )}
        {info && <span>≈{formatCount(info.estimatedTokens)} tokens</span>}
        {info && <span>stored at {formatTime(info.createdAt, now)}</span>}
        {clearedSince !== undefined && <ClearedMark step={clearedSince} />}
        {!live && eviction && (
          <span class="cut">
            evicted ({clip(eviction.reason, 40)}) at {formatTime(eviction.at, now)}
          </span>
        )}
      </div>
      <div class="status" role="status">
        {message}
      </div>
      <div class="panes">
        <section class="pane" aria-label="Preview shown to the model">
          <div class="pane-head">
            <h3>Preview shown to the model</h3>
          </div>
          {info ? (
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
            <pre ref={previewRef} class="preview" tabIndex={0}>
              {clip(info.preview, PREVIEW_CHARS)}
            </pre>
          ) : (
            <p class="empty">The store keeps no preview of an entry that is no longer listed.</p>
          )}
        </section>
        <TextPager key={`${selected.threadId}\u0000${selected.key}`} state={text} />
      </div>
    </section>
  );
}
