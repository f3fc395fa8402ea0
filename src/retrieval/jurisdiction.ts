/**
 * Jurisdiction-scoped legal knowledge. A legal item may state the law of one jurisdiction (`US`),
 * or of one sub-region of it (`US` + `California`), or neither (general information). A visitor's
 * legal question may use the items of their jurisdiction and sub-region and the items without
 * one, never another jurisdiction's: a California visitor gets California, United States and
 * general items, never Texas ones.
 *
 * Chunks carry the item's jurisdiction as one key (`US`, `US/California`, or null), so a search
 * filters on one column; the search leaves the other keys out while it ranks (see
 * KnowledgeService.retrieve), not after.
 */

/** What a visitor's legal question is scoped to: their jurisdiction (and sub-region), or none. */
export interface VisitorJurisdiction {
  code: string;
  subRegion?: string;
}

/** The key stored on an item's chunks: `US`, `US/California`, or null for general items. */
export function jurisdictionKey(code: string | null | undefined, subRegion: string | null | undefined): string | null {
  if (!code) return null;
  return subRegion ? `${code}/${subRegion}` : code;
}

/**
 * The keys a visitor may read besides null (general items): their jurisdiction's, and their
 * sub-region's. A visitor without a jurisdiction reads general items only.
 */
export function allowedKeys(visitor: VisitorJurisdiction | null): string[] {
  if (!visitor) return [];
  return visitor.subRegion ? [visitor.code, jurisdictionKey(visitor.code, visitor.subRegion)!] : [visitor.code];
}

/** Whether a chunk with `key` may be used for the visitor (null: general information, always). */
export function isAllowed(key: string | null, allowed: readonly string[]): boolean {
  return key === null || allowed.includes(key);
}

/** "California, United States" or "United States": how replies name the visitor's jurisdiction. */
export function describeJurisdiction(visitor: { name: string; subRegion?: string }): string {
  return visitor.subRegion ? `${visitor.subRegion}, ${visitor.name}` : visitor.name;
}
