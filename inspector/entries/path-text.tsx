import { clip } from '../format.js';

/**
 * A path shown by its distinguishing tail: the folder part gives way first (cut at its end), then
 * the last segment (cut at its start), so entries under one folder stay apart however narrow the
 * cell. The whole path is in the DOM (a copy of the text copies all of it) and in the title.
 */
export function PathText({ path }: { path: string }) {
  const shown = clip(path);
  const slash = shown.lastIndexOf('/', shown.length - 2);
  const head = shown.slice(0, slash + 1);
  const tail = shown.slice(slash + 1);
  return (
    <span class="path-text" title={shown}>
      {head && <span class="path-head">{head}</span>}
      {/* rtl: an overflowing tail loses its start, not its end; <bdi> keeps its own order */}
      <span class="path-tail" dir="rtl">
        <bdi>{tail}</bdi>
      </span>
    </span>
  );
}
