/**
 * Random printable ASCII for the benches (one UTF-8 byte a character). Chromium compresses large
 * IndexedDB values, so repetitive text would make writes unrealistically cheap.
 */
export function randomText(chars: number): string {
  const bytes = new Uint8Array(Math.min(chars, 8192));
  let text = '';
  while (text.length < chars) {
    crypto.getRandomValues(bytes);
    const codes = Array.from(bytes.subarray(0, chars - text.length), (byte) => 33 + (byte % 90));
    text += String.fromCharCode(...codes);
  }
  return text;
}

/** Random text in lines of `lineChars` characters (the newline included), `chars` long. */
export function randomLines(chars: number, lineChars: number): string {
  const lines: string[] = [];
  for (let length = 0; length < chars; length += lineChars) {
    lines.push(randomText(Math.min(lineChars, chars - length) - 1));
  }
  return `${lines.join('\n')}\n`.slice(0, chars);
}

/**
 * Texts of `chars` characters that differ from each other, cut from one random pool: each starts
 * with its own label and is a different window of the pool (so none repeats another, and making
 * one costs no random numbers).
 */
export class TextPool {
  readonly #pool: string;
  #made = 0;

  constructor(readonly chars: number) {
    this.#pool = randomText(chars * 2);
  }

  next(): string {
    const label = `#${this.#made++} `;
    const start = Math.floor(Math.random() * this.chars);
    return label + this.#pool.slice(start, start + this.chars - label.length);
  }
}
