/**
 * A token estimate that follows the text's script and shape, in one pass: it splits the text about
 * as byte-level BPE tokenizers pre-split it (o200k: a word with one leading mark, case changes,
 * digits three at a time, punctuation runs with the space before them, whitespace runs) and prices
 * each piece by its kind and length. Runs of letters and digits that change case or kind often
 * (base64, hex ids) are priced as random text. CJK and other non-ASCII characters count per
 * character, weighted by script. Whitespace runs are priced line by line as o200k merges them, and
 * control characters, format characters and lone surrogates as the one to three tokens each
 * they are (a lone surrogate is sent as U+FFFD). The weights were fitted to o200k on the bench's
 * corpus (bench/estimator.bench.ts measures them on a seed the fitting did not use).
 */

// Character kinds, one per UTF-16 unit. The ASCII kinds come first: `kind >= han` means a
// character past ASCII that a word or a mark may join.
/** The end of the text. */
const end = 0;
const lower = 1;
const upper = 2;
const digit = 3;
const space = 4;
const tab = 5;
const newline = 6; // '\n'
const cr = 7; // '\r'
const mark = 8;
/** C0 controls but tab, LF and CR (\v and \f too), and DEL: o200k has no merges for them, one token each. */
const control = 9;
const han = 10;
const hangul = 11;
const kana = 12;
const cjkMark = 13;
/** Latin with accents, Greek, Cyrillic, Hebrew, Arabic…: letters of alphabets, in words (two bytes in UTF-8). */
const alphabetic = 14;
/** The same, three bytes in UTF-8 (U+0800–U+1FFF). */
const alphabetic3 = 15;
const otherWide = 16;
/** C1 controls (two bytes, two tokens each). */
const wideControl = 17;
/**
 * Format and space characters past ASCII (spaces, bidi isolates, invisible operators, BOM,
 * specials): three bytes, two tokens each…
 */
const formatChar = 18;
/** …or one (zero-width characters, bidi marks and embeddings, U+2028, the soft hyphen). */
const formatChar1 = 19;
/** Private use: three bytes a character, no merges. */
const privateUse = 20;
/** No-break space: one token alone, eight to a token in a run. */
const noBreakSpace = 21;
/**
 * The high half of an astral character: priced with its pair, as a character with no merges (four
 * bytes, about four tokens)…
 */
const highSurrogate = 22;
const lowSurrogate = 23;
/** …or an emoji's (U+1F000–U+1FBFF), about two tokens. */
const emojiHighSurrogate = 24;
const kindCount = 25;

const asciiKind = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  let kind = mark;
  if (code >= 97 && code <= 122) kind = lower;
  else if (code >= 65 && code <= 90) kind = upper;
  else if (code >= 48 && code <= 57) kind = digit;
  else if (code === 10) kind = newline;
  else if (code === 13) kind = cr;
  else if (code === 32) kind = space;
  else if (code === 9) kind = tab;
  else if (code < 32 || code === 127) kind = control;
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
/** Anything else in the BMP (symbols, Indic and South-East Asian scripts). */
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
/** o200k's longest run of '\n' in one token, of tabs, of no-break spaces, of U+FFFD (what a lone surrogate becomes). */
const newlinesPerToken = 16;
/** o200k has a token for every run of spaces up to 80 (and a few longer ones, up to 128). */
const spacesPerToken = 80;
const crlfsPerToken = 4;
const tabsPerToken = 16;
const noBreakSpacesPerToken = 8;
const loneSurrogatesPerToken = 8;
/** Tokens of an astral character (a surrogate pair): an emoji, anything else. */
const emojiWeight = 2;
const astralWeight = 4;
/** No o200k token is longer than this many bytes: no text is fewer tokens than its UTF-8 bytes over it. */
const longestTokenBytes = 128;

const weightOf = new Float64Array(kindCount);
weightOf[han] = hanWeight;
weightOf[hangul] = hangulWeight;
weightOf[kana] = kanaWeight;
weightOf[cjkMark] = cjkMarkWeight;
weightOf[alphabetic] = alphabeticWeight;
weightOf[alphabetic3] = alphabeticWeight;
weightOf[otherWide] = otherWeight;
weightOf[wideControl] = 2;
weightOf[formatChar] = 2;
weightOf[formatChar1] = 1;
weightOf[privateUse] = 3;

/** UTF-8 bytes of a unit of each kind past ASCII beyond its first (two-byte kinds: 1, the rest 2; surrogates apart). */
const extraBytesOf = new Uint8Array(kindCount).fill(2);
extraBytesOf[alphabetic] = 1;
extraBytesOf[wideControl] = 1;

function kindOf(code: number): number {
  if (code < 128) return asciiKind[code]!;
  if (code >= 0x4e00 && code <= 0x9fff) return han;
  if (code >= 0xac00 && code <= 0xd7af) return hangul;
  if (code >= 0x3040 && code <= 0x30ff) return kana;
  if ((code >= 0x3000 && code <= 0x303f) || (code >= 0xff00 && code <= 0xffef)) return cjkMark;
  if (code < 0xa0) return wideControl;
  if (code === 0xa0) return noBreakSpace;
  if (code === 0xad) return formatChar1;
  if (code === 0x1680) return privateUse;
  if (code < 0x800) return alphabetic;
  if (code < 0x2000) return alphabetic3;
  // Spaces, zero-width characters, bidi controls, line separators, invisible operators: o200k
  // has tokens for some (one token each), none for the others (two).
  if (code <= 0x200f || (code >= 0x2028 && code <= 0x202f) || (code >= 0x205f && code <= 0x206f)) {
    const one = code === 0x2002 || code === 0x2003 || code === 0x2005 || (code >= 0x2009 && code <= 0x200f);
    return one || code === 0x2028 || (code >= 0x202a && code <= 0x202f) || code === 0x2060 || code === 0x2063
      ? formatChar1
      : formatChar;
  }
  if (code === 0xfffc) return formatChar1;
  if (code === 0xfeff || (code >= 0xfff0 && code <= 0xfffb) || code >= 0xfffe) return formatChar;
  if (code >= 0x3400 && code <= 0x4dbf) return han;
  if (code >= 0xd83c && code <= 0xd83e) return emojiHighSurrogate;
  if (code >= 0xd800 && code <= 0xdbff) return highSurrogate;
  if (code >= 0xdc00 && code <= 0xdfff) return lowSurrogate;
  if (code >= 0xe000 && code <= 0xf8ff) return privateUse;
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
 * Tokens of one line of a whitespace run: `spaces` and `tabs` then a newline (CRLF when `crlf`).
 * o200k has a token for most such lines up to about 28 spaces ('    \n'), and merges a line with
 * the same one before it ('    \n    \n    \n    \n'), so a repeated line costs less (`repeat`).
 */
function lineTokens(spaces: number, tabs: number, crlf: boolean, repeat: boolean): number {
  if (repeat && (spaces === 0 || tabs === 0)) {
    const h = spaces + tabs;
    if (tabs === 0) {
      if (crlf) {
        if (h === 4 || h === 8) return 0.5;
        if (h === 16 || h === 20 || h === 24) return 1;
      } else {
        if (h === 4) return 0.25;
        if (h === 1 || h === 2 || h === 8 || h === 12 || h === 16) return 0.5;
        if (h === 32 || h === 36 || h === 40) return 1;
      }
    } else if (crlf) {
      if (h <= 3) return 0.5;
      if (h <= 7) return 1;
    } else {
      if (h === 1) return 0.25;
      if (h <= 4) return 0.5;
      if (h <= 10) return 1;
    }
  }
  // A tab is about four spaces wide in these merges.
  const width = spaces + 4 * tabs;
  if (crlf) return width < 13 ? 1 : 2 + Math.floor((width - 13) / 64);
  return 1 + Math.floor((width + 3) / 32);
}

/**
 * Tokens of a group of blank lines: `lf` of '\n' or `crlf` of '\r\n' (one of them is 0). Right
 * after marks (`afterMarks`) one or two newlines are in the marks' token (';\n', '}\n\n').
 */
function groupTokens(lf: number, crlf: number, afterMarks: boolean): number {
  // A group longer than one token seldom splits into full tokens: one more.
  const tokens = Math.ceil(lf / newlinesPerToken) + (lf > newlinesPerToken ? 1 : 0) + Math.ceil(crlf / crlfsPerToken);
  return afterMarks && lf <= 2 && crlf <= 1 ? 0 : tokens;
}

/**
 * Estimated tokens of `text` for a modern byte-level BPE tokenizer (o200k), from its script and
 * shape: ASCII words, digits, punctuation, whitespace, CJK and other non-ASCII characters. One pass
 * over runs of characters of one kind, no allocation. Within about 10% of o200k on each kind of
 * text `npm run bench` measures (its error by kind: bench/README.md in the repository), and never
 * fewer tokens than one per 128 UTF-8 bytes (o200k's longest token); plug an exact tokenizer into
 * `estimateTokens` when the count must be exact.
 */
export function estimateTokensByScript(text: string): number {
  let tokens = 0;
  let bytes = text.length; // UTF-8 bytes: one a unit, plus what the runs past ASCII add
  // The run before the current one, priced once the kind after it is known.
  let kind = end;
  let count = 0;
  let before = end; // the kind of the run before `kind`
  let capitals = 0; // an upper-case run waiting for the lower-case letters after it
  // The current run of letters and digits (several pieces), to spot random text.
  let alnumChars = 0;
  let alnumMixes = 0;
  let alnumStartTokens = 0;
  // The current whitespace run: its lines' tokens so far, and the line being read.
  let spaces = 0; // spaces and tabs since the run's last newline
  let tabs = 0;
  let pieces = 0; // runs of spaces and of tabs since the last newline: each change is a token ('\t  \t')
  let crlf = false; // the line's newline is '\r\n'
  let lines = 0; // tokens of the run's lines that ended
  let newlines = false; // lines or groups of blank lines of the run were priced
  let lfGroup = 0; // blank lines ('\n', '\r\n') not priced yet
  let crlfGroup = 0;
  let lastLine = -1; // spaces + tabs × 65536 + crlf of the line before, to spot a repeat
  let whitespace = false; // a whitespace run is being read
  let newlineAfterMarks = false; // the run began with newlines right after marks (';\n'), which join them

  const table = kindTable();
  const length = text.length;
  let i = 0;
  // The kind of the character at i, found as the run before it ended.
  let at = length > 0 ? table[text.charCodeAt(0)]! : end;
  while (i <= length) {
    // The next run: characters of one kind.
    let next = end;
    let j = i;
    if (i < length) {
      next = at;
      for (j = i + 1; j < length; j++) {
        at = table[text.charCodeAt(j)]!;
        if (at !== next) break;
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
      newlineAfterMarks = next === newline || next === cr;
    } else if (kind === space) {
      spaces += count;
      pieces++;
      whitespace = true;
    } else if (kind === tab) {
      tabs += count;
      pieces++;
      whitespace = true;
    } else if (kind === cr) {
      whitespace = true;
      // '\r\n' is a newline; other carriage returns are half a token each ('\r\r').
      const lone = next === newline ? count - 1 : count;
      crlf = next === newline;
      if (lone > 0) {
        lines += groupTokens(lfGroup, crlfGroup, newlineAfterMarks && !newlines) + Math.ceil(lone / 2);
        lfGroup = crlfGroup = 0;
        if (spaces + tabs > 0) lines += lineTokens(spaces, tabs, false, false) + pieces - 1;
        spaces = tabs = pieces = 0;
        newlines = true;
        lastLine = -1;
      }
    } else if (kind === newline) {
      whitespace = true;
      if (spaces + tabs === 0) {
        // Blank lines: a group of '\n' or of '\r\n' is one token per 16 or per 4; a group ends
        // where the other begins.
        if (crlf) {
          if (lfGroup > 0) lines += groupTokens(lfGroup, 0, newlineAfterMarks && !newlines);
          if (lfGroup > 0) newlines = true;
          lfGroup = 0;
          crlfGroup++;
          if (count > 1) {
            lines += groupTokens(0, crlfGroup, newlineAfterMarks && !newlines);
            newlines = true;
            crlfGroup = 0;
            lfGroup = count - 1;
          }
        } else {
          if (crlfGroup > 0) {
            lines += groupTokens(0, crlfGroup, newlineAfterMarks && !newlines);
            newlines = true;
            crlfGroup = 0;
          }
          lfGroup += count;
        }
        lastLine = -1;
      } else {
        // One or two newlines before the line are in its token ('\n    \n').
        if (!(lfGroup <= 2 && crlfGroup === 0))
          lines += groupTokens(lfGroup, crlfGroup, newlineAfterMarks && !newlines);
        lfGroup = crlfGroup = 0;
        // Only lines of one newline merge with the same line before them; more newlines join the line's token ('    \n\n').
        const line = count === 1 ? spaces + tabs * 65536 + (crlf ? 0.5 : 0) : -1;
        lines += lineTokens(spaces, tabs, crlf, line !== -1 && line === lastLine) + pieces - 1;
        // A second newline is in the line's token ('    \n\n') about half the time; more are a group of their own.
        if (count === 2) lines += 0.5;
        else if (count > 2) lines += groupTokens(count - 1, 0, false);
        lastLine = line;
        newlines = true;
      }
      spaces = 0;
      tabs = 0;
      pieces = 0;
      crlf = false;
    } else if (kind === control) {
      tokens += count;
    } else if (kind === noBreakSpace) {
      tokens += 1 + (count - 1) / noBreakSpacesPerToken;
      bytes += count;
    } else if (kind === highSurrogate || kind === emojiHighSurrogate || kind === lowSurrogate) {
      // A pair is one character (priced with its high half); an unpaired half is sent as U+FFFD.
      const high = kind !== lowSurrogate;
      const paired = high ? next === lowSurrogate : before === highSurrogate || before === emojiHighSurrogate;
      const lone = paired ? count - 1 : count;
      if (high && paired) tokens += kind === emojiHighSurrogate ? emojiWeight : astralWeight;
      if (lone > 0) tokens += 1 + (lone - 1) / loneSurrogatesPerToken;
      bytes += count + lone;
    } else if (kind >= han) {
      tokens += count * weightOf[kind]!;
      bytes += count * extraBytesOf[kind]!;
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
    // A whitespace run ends: its lines, then the spaces after its last newline. Newlines are at
    // least a piece unless they end a punctuation run (';\n'); one space or tab before a word, or
    // one space before a mark, joins it; other spaces and tabs are a piece.
    if (whitespace && (next < space || next > cr)) {
      whitespace = false;
      tokens += lines + groupTokens(lfGroup, crlfGroup, newlineAfterMarks && !newlines);
      lfGroup = crlfGroup = 0;
      if (tabs > 0) {
        const joins = next === lower || next === upper || next >= han;
        if (!(tabs === 1 && spaces === 0 && joins))
          tokens += pieces + (tabs - 1) / tabsPerToken + Math.floor(spaces / spacesPerToken);
      } else if (spaces > 0) {
        const joins = next === lower || next === upper || next === mark || next >= han;
        if (spaces > (joins ? 1 : 0)) tokens += 1 + Math.floor(spaces / spacesPerToken);
      }
      spaces = 0;
      tabs = 0;
      pieces = 0;
      crlf = false;
      lines = 0;
      newlines = false;
      lastLine = -1;
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
  return Math.ceil(Math.max(tokens, bytes / longestTokenBytes));
}
