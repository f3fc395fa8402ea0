/** The part of `snowball-stemmers` (ISC; it ships no types) that translate.ts uses. */
declare module 'snowball-stemmers' {
  export interface Stemmer {
    stem(word: string): string;
  }
  /** A stemmer for one of algorithms(): 'spanish', 'french', 'german', 'italian', 'portuguese', 'arabic', ... */
  export function newStemmer(algorithm: string): Stemmer;
  export function algorithms(): string[];
}
