// The limits grep's description prints, apart from the search that keeps them, so a tool can be
// declared without loading the search.

/** The most lines one grep call scans. */
export const defaultMaxLines = 1_000_000;
/**
 * A line longer than this is matched in pieces of up to this many characters (fewer for a costly
 * pattern, so one piece stays within a slice), each overlapping the next by a quarter of a piece.
 */
export const longLineChars = 65_536;
/** The longest match a long line's pieces are sure to hold whole: the overlap at the costliest pattern. */
export const longMatchChars = 256;
