/**
 * A crude plural/singular key used only to de-duplicate terms that the index stemmer would
 * collapse anyway ("refund refunds" would otherwise be counted twice by the scorer).
 */
export function dedupeKey(word: string): string {
  if (/^\d+$/.test(word) || word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}
