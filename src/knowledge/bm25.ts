/**
 * BM25 parameters shared by both search indexes, so SQLite and Postgres rank the same way.
 * (FTS5's bm25() hard-codes k1 = 1.2 and b = 0.75; the Postgres scorer uses these constants.)
 */

/** Term-frequency saturation. */
export const BM25_K1 = 1.2;
/** Document-length normalisation. */
export const BM25_B = 0.75;
/** One occurrence of a query term in the title counts as this many occurrences in the text. */
export const TITLE_WEIGHT = 4;
