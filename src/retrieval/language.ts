/**
 * Which of the offered languages a text is written in, cheaply and offline: by script for Chinese,
 * Japanese, Korean, Hindi and Arabic (kana tells Japanese from Chinese), by the share of each
 * language's most frequent function words for the Latin-script ones. Good enough to say which
 * language a quoted passage is in and whether a question is in the knowledge base's language;
 * not a general language identifier (short or mixed texts may come out undefined).
 */

/** Frequent function words of the Latin-script offered languages (each list avoids the others' commonest words where it can). */
const FUNCTION_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  en: new Set('the and is are of to in for with you your it this that be on not can do does how what or from have has will'.split(' ')),
  es: new Set('el la los las de del que y en es un una por para con no se su al lo como más pero sus le ya o este sí porque esta cómo qué puedo'.split(' ')),
  fr: new Set('le la les de des du et est un une pour dans que qui ne pas sur au aux avec ce cette il elle vous nous son sa ses comment mon ma'.split(' ')),
  de: new Set('der die das und ist nicht ein eine zu den von mit sich des auf für im dem auch es an werden aus er sie wie ich kann man'.split(' ')),
  pt: new Set('o a os as de do da dos das e é um uma para com não que no na em por se mais como ao seu sua ou isso meu minha você'.split(' ')),
  it: new Set('il lo la gli le di del della e è un una per con non che nel nella da si come al sono mi ma anche questo ho posso'.split(' ')),
};

/** The offered language (ISO 639-1 code) `text` is written in, or undefined when it cannot tell. */
export function detectLanguage(text: string): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const sample = text.slice(0, 4000);
  const count = (re: RegExp) => sample.match(re)?.length ?? 0;
  const hangul = count(/\p{Script=Hangul}/gu);
  const kana = count(/[\p{Script=Hiragana}\p{Script=Katakana}]/gu);
  const han = count(/\p{Script=Han}/gu);
  const devanagari = count(/\p{Script=Devanagari}/gu);
  const arabic = count(/\p{Script=Arabic}/gu);
  const latin = count(/\p{Script=Latin}/gu);
  const scripts: [string, number][] = [
    ['ko', hangul],
    ['ja', kana > 0 ? kana + han : 0],
    ['zh', kana > 0 ? 0 : han],
    ['hi', devanagari],
    ['ar', arabic],
  ];
  const [script, letters] = scripts.reduce((best, s) => (s[1] > best[1] ? s : best), ['', 0] as [string, number]);
  // A question in Chinese naming "Python" or "git" is still Chinese: non-Latin letters outweigh.
  if (letters > 0 && letters * 2 >= latin / 3) return script;

  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  if (words.length === 0) return undefined;
  let best: string | undefined;
  let bestHits = 0;
  let second = 0;
  for (const [lang, list] of Object.entries(FUNCTION_WORDS)) {
    let hits = 0;
    for (const w of words) if (list.has(w)) hits++;
    if (hits > bestHits) {
      second = bestHits;
      bestHits = hits;
      best = lang;
    } else if (hits > second) second = hits;
  }
  // Letters with diacritics only some languages use break a tie (a short question).
  if (bestHits === 0 || bestHits === second) {
    if (/[ñ¿¡]/.test(sample)) return 'es';
    if (/[ãõ]/.test(sample)) return 'pt';
    if (/[äöüß]/.test(sample)) return 'de';
    if (/[çœ]|[éèêà]\b/.test(sample)) return 'fr';
    return bestHits === 0 ? undefined : best;
  }
  return best;
}
