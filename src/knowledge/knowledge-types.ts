/** The knowledge base's shapes: what the admin API writes and lists, and what retrieval answers. */
import type { CheckedKnowledgeItem, KnowledgeAttachment as KnowledgeAttachmentView, KnowledgeItem as KnowledgeItemView } from '../shared/contracts/knowledge';
import type { RankedItem as RankedAnswer, RelevanceParams } from '../retrieval/relevance';
import type { VisitorJurisdiction } from '../retrieval/jurisdiction';

/**
 * A checked item (KnowledgeItemInputSchema's output: the API parses every body with it before it
 * gets here; other callers parse with it too). A patch changes some fields of a stored item.
 */
export type KnowledgeItemPatch = Partial<CheckedKnowledgeItem>;

export type { KnowledgeAttachmentView, KnowledgeItemView };

export interface KnowledgeListOptions {
  vertical?: string;
  /** Items of this jurisdiction (a code), or 'none' for items without one. */
  jurisdiction?: string;
  /** With `jurisdiction`: its items of this sub-region. */
  subRegion?: string;
  /** Free text: items ranked by relevance, then items merely containing the text. */
  search?: string;
}

export interface KnowledgeSearchOptions {
  vertical?: string;
  /** Most passages to return; default 10, at most 100. */
  limit?: number;
}

/** A passage of a knowledge item (shape compatible with the LLM port's LlmPassage). */
export interface KnowledgePassage {
  itemId: string;
  chunkId: number;
  title: string;
  text: string;
  /** search(): raw BM25 (higher is better). retrieve(): relative to the best passage, 0..1. */
  score: number;
}

/** A knowledge item an answer can cite (the chat reply's `sources`). */
export interface KnowledgeSource {
  id: string;
  title: string;
  /** Relative to the best item of the same retrieval: 1 for the best, down to 0. */
  score: number;
  /**
   * The item's best-matching passage (its chunk's text: the item's words with the white space
   * normalised, see chunker.ts), what a source chip opens to. Absent when the chunk went meanwhile.
   */
  passage?: string;
  /** The web page the item was imported from (replies link it). */
  url?: string;
}

export interface RetrieveOptions {
  vertical?: string;
  /** Most items; default 4, at most 20. */
  limit?: number;
  /** Most passages per item; default 2, at most 10. */
  passagesPerItem?: number;
  /** Also search related words from the support thesaurus (default true). */
  expand?: boolean;
  /** Ranking parameters other than the defaults (the evaluation tries them; see relevance.ts). */
  relevance?: Partial<RelevanceParams>;
  /** Also return the ranked candidates, floor or not (Retrieval.candidates; for the evaluation). */
  explain?: boolean;
  /**
   * Other verticals the visitor could ask in. When nothing clears the floor here, or the match
   * here is weak and one of them matches clearly better, the reply is "not found" here and that
   * vertical is suggested (Retrieval.suggestedVertical; see WEAK_MATCH in relevance.ts).
   */
  elsewhere?: readonly string[];
  /**
   * A legal question's scope: the visitor's jurisdiction (and sub-region), or null for none. Set,
   * only items of that jurisdiction and sub-region and items without a jurisdiction are ranked;
   * another jurisdiction's are left out by the search itself. Unset: no jurisdiction filter.
   */
  jurisdiction?: VisitorJurisdiction | null;
  /** false: BM25 alone even when embeddings are on (the other verticals' probes; the evaluation's lexical mode). */
  semantic?: boolean;
}

export interface Retrieval {
  /** Items that clear the relevance floor, best first (none: "not found"). */
  sources: KnowledgeSource[];
  /** The chosen passages, grouped by item in `sources` order, each item's in document order. */
  passages: KnowledgePassage[];
  /**
   * 0..1: the estimated probability that the first source answers the question (relevance.ts,
   * replyConfidence: its match, lowered when another item comes close); 0 for a "not found",
   * which cites nothing. The chat pipeline reports it as the reply's `confidence`.
   */
  confidence: number;
  /**
   * 0..1: how well the first source covers the question (relevance.ts, matchOf), or for a "not
   * found" the best item below the floor (0 when nothing matched at all). What decides whether
   * another vertical's knowledge matches better (RetrieveOptions.elsewhere).
   */
  match: number;
  /** Whether anything cleared the relevance floor (sources is not empty). */
  answered: boolean;
  /**
   * 0..1: the IDF-weighted share of the question's content terms that the first source (or, when
   * nothing cleared the floor, the best item) covers, related words counting half.
   */
  coverage: number;
  /** The content terms the question was reduced to. */
  terms: string[];
  /** With `explain`: the best ranked items (at most 30), whether they cleared the floor or not. */
  candidates?: RankedAnswer[];
  /** With `elsewhere`, when not answered: the vertical whose knowledge matches the question. */
  suggestedVertical?: string;
  /**
   * With `jurisdiction`, when answered: true when every cited item is general information (none
   * is specific to the visitor's jurisdiction or sub-region), so the reply can say so.
   */
  generalOnly?: boolean;
  /** How it was searched, when embeddings are configured: fused with them, or BM25 alone because the embedding call failed or was late. */
  mode?: 'hybrid' | 'lexical-fallback';
}
