/** The BM25 parameters every search index scores with (knowledge/bm25-scoring.ts) and the relevance floor bounds with. */
/** Term-frequency saturation. */
export const BM25_K1 = 1.2;
/** Document-length normalisation. */
export const BM25_B = 0.75;
/** One occurrence of a query term in the title counts as this many occurrences in the text. */
export const TITLE_WEIGHT = 4;
