/**
 * A token estimate that follows the text's script and shape, in one pass and without tables: it
 * splits the text about as byte-level BPE tokenizers pre-split it (o200k: a word with one leading
 * mark, case changes, digits three at a time, punctuation runs with the space before them,
 * whitespace runs) and prices each piece by its kind and length. Runs of letters and digits that
 * change case or kind often (base64, hex ids) are priced as random text. CJK and other non-ASCII
 * characters count per character, weighted by script. The weights were fitted to o200k on the
 * bench's corpus (bench/estimator.bench.ts measures them on a seed the fitting did not use).
 */

// ASCII character kinds, looked up by code (control characters count as marks).
/** The end of the text. */
const end = 0;
const lower = 1;
const upper = 2;
const digit = 3;
const space = 4;
const newline = 5;
const mark = 6;

const asciiKind = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  let kind = mark;
  if (code >= 97 && code <= 122) kind = lower;
  else if (code >= 65 && code <= 90) kind = upper;
  else if (code >= 48 && code <= 57) kind = digit;
  else if (code === 10 || code === 13) kind = newline;
  else if (code === 32 || code === 9 || code === 11 || code === 12) kind = space;
  asciiKind[code] = kind;
}

/** Tokens per character of each script past ASCII. */
const hanWeight = 0.66;
const kanaWeight = 0.72;
const hangulWeight = 0.7;
/** CJK and full-width punctuation. */
const cjkMarkWeight = 0.9;
/** Latin with accents, Greek, Cyrillic, Hebrew, Arabic…: letters of alphabets, in words. */
const alphabeticWeight = 0.3;
/** Anything else (symbols, emoji halves, Indic and South-East Asian scripts). */
const otherWeight = 0.8;

/** A lower-case word is one token up to this many letters; each further `lettersPerExtraToken` adds one. */
const oneTokenLetters = 9;
const lettersPerExtraToken = 4;
/** A capitalized word (a name, mostly) splits more often than a common lower-case one. */
const capitalizedExtra = 1;
/** An all-caps piece: letters a token. */
const capitalsPerToken = 3;
/** Punctuation runs: marks a token. */
const marksPerToken = 3;
/** A letter-and-digit run that changes case or kind at least once every `mixEvery` characters is random text… */
const mixEvery = 3.5;
const minRandomRun = 8;
/** …priced at this many characters a token. */
const randomCharsPerToken = 1.45;

/** Kinds past ASCII, by script; each character of them counts its kind's weight. */
const han = 7;
const hangul = 8;
const kana = 9;
const cjkMark = 10;
const alphabetic = 11;
const otherWide = 12;
/** The low half of a surrogate pair: counted with its high half. */
const lowSurrogate = 13;

const weightOf = new Float64Array(14);
weightOf[han] = hanWeight;
weightOf[hangul] = hangulWeight;
weightOf[kana] = kanaWeight;
weightOf[cjkMark] = cjkMarkWeight;
weightOf[alphabetic] = alphabeticWeight;
weightOf[otherWide] = otherWeight;

function kindOf(code: number): number {
  if (code < 128) return asciiKind[code]!;
  if (code >= 0x4e00 && code <= 0x9fff) return han;
  if (code >= 0xac00 && code <= 0xd7af) return hangul;
  if (code >= 0x3040 && code <= 0x30ff) return kana;
  if ((code >= 0x3000 && code <= 0x303f) || (code >= 0xff00 && code <= 0xffef)) return cjkMark;
  if (code < 0x2000) return alphabetic;
  if (code >= 0x3400 && code <= 0x4dbf) return han;
  if (code >= 0xdc00 && code <= 0xdfff) return lowSurrogate;
  return otherWide;
}

/** Every UTF-16 unit's kind, computed once on first use (64 KiB), so the scan is one lookup a character. */
let kinds: Uint8Array | undefined;
function kindTable(): Uint8Array {
  if (kinds) return kinds;
  kinds = new Uint8Array(0x10000);
  for (let code = 0; code < 0x10000; code++) kinds[code] = kindOf(code);
  return kinds;
}

/**
 * Estimated tokens of `text` for a modern byte-level BPE tokenizer (o200k), from its script and
 * shape: ASCII words, digits, punctuation, whitespace, CJK and other non-ASCII characters. One pass
 * over runs of characters of one kind, no allocation, no tables. Within about 10% of o200k on each
 * kind of text `npm run bench` measures (its error by kind: bench/README.md in the repository); plug
 * an exact tokenizer into `estimateTokens` when the count must be exact.
 */
export function estimateTokensByScript(text: string): number {
  let tokens = 0;
  // The run before the current one, priced once the kind after it is known.
  let kind = end;
  let count = 0;
  let before = end; // the kind of the run before `kind`
  let capitals = 0; // an upper-case run waiting for the lower-case letters after it
  // The current run of letters and digits (several pieces), to spot random text.
  let alnumChars = 0;
  let alnumMixes = 0;
  let alnumStartTokens = 0;
  let spaces = 0; // spaces since the last newline of the current whitespace run
  let newlines = false;
  let newlineAfterMarks = false;

  const table = kindTable();
  const length = text.length;
  let i = 0;
  while (i <= length) {
    // The next run: characters of one kind.
    let next = end;
    let j = i;
    if (i < length) {
      next = table[text.charCodeAt(i)]!;
      for (j = i + 1; j < length; j++) {
        if (table[text.charCodeAt(j)] !== next) break;
      }
    } else j = length + 1;

    // Price the run before it (`kind`, `count` characters), now that `next` is known.
    if (kind === lower) {
      if (capitals === 1)
        tokens += 1 + capitalizedExtra + Math.max(0, count + 1 - oneTokenLetters) / lettersPerExtraToken;
      else if (capitals > 1) tokens += Math.ceil(capitals / capitalsPerToken) + (count > 1 ? 1 : 0);
      else tokens += count <= oneTokenLetters ? 1 : 1 + (count - oneTokenLetters) / lettersPerExtraToken;
      capitals = 0;
    } else if (kind === upper) {
      // "Word" and "NRHe" continue with the lower-case letters after them; "INFO" is a piece.
      if (next === lower) capitals = count;
      else tokens += Math.ceil(count / capitalsPerToken);
    } else if (kind === digit) {
      tokens += Math.ceil(count / 3);
    } else if (kind === mark) {
      // One mark right before a word joins it ('"name', '.id'); a longer run, or one after a space,
      // is its own piece, with the space (' "', ' ({').
      if (!(count === 1 && before !== space && (next === lower || next === upper || next >= han))) {
        tokens += Math.ceil(count / marksPerToken);
      }
      newlineAfterMarks = next === newline;
    } else if (kind === space) {
      spaces += count;
    } else if (kind === newline) {
      newlines = true;
      spaces = 0;
    } else if (kind >= han) {
      tokens += count * weightOf[kind]!;
    }

    const isAlnum = next === lower || next === upper || next === digit;
    // A letter-and-digit run ends: replace its pieces' price when it looks random.
    if (alnumChars > 0 && !isAlnum) {
      if (alnumChars >= minRandomRun && alnumMixes * mixEvery >= alnumChars) {
        tokens = alnumStartTokens + alnumChars / randomCharsPerToken;
      }
      alnumChars = 0;
      alnumMixes = 0;
    }
    // A whitespace run ends: a newline (or several) is a piece unless it ends a punctuation run
    // (';\n'); spaces before a word or mark join it, other spaces are a piece.
    if ((spaces > 0 || newlines) && next !== space && next !== newline) {
      if (newlines && !newlineAfterMarks) tokens += 1;
      const joins = next === lower || next === upper || next === mark || next >= han;
      if (spaces > (joins ? 1 : 0)) tokens += 1 + spaces / 64;
      spaces = 0;
      newlines = false;
      newlineAfterMarks = false;
    }
    if (isAlnum) {
      if (alnumChars === 0) alnumStartTokens = tokens;
      else if (!(next === lower && kind === upper && count === 1)) alnumMixes++;
      alnumChars += j - i;
    }
    before = kind;
    kind = next;
    count = j - i;
    i = j;
  }
  return Math.ceil(tokens);
}
