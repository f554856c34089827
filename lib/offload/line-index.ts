import { countLines } from '../text.js';

/**
 * Where each line of a text starts, counted as the file tools count lines (lib/text.ts), so a
 * stored result of a megabyte is scanned once and then paged by slicing.
 */
export class LineIndex {
  readonly #starts: Uint32Array;

  constructor(readonly text: string) {
    this.#starts = new Uint32Array(countLines(text));
    let at = 0;
    for (let line = 0; line < this.#starts.length; line++) {
      this.#starts[line] = at;
      at = text.indexOf('\n', at) + 1;
    }
  }

  get lines(): number {
    return this.#starts.length;
  }

  /** Lines [offset, offset + limit) with their newlines, as `sliceLines` gives them ('' past the end). */
  page(offset: number, limit = Number.POSITIVE_INFINITY): string {
    if (offset >= this.lines) return '';
    const end = offset + limit < this.lines ? this.#starts[offset + limit]! : this.text.length;
    return this.text.slice(this.#starts[offset]!, end);
  }
}
