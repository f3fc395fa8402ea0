/**
 * Which of the offered languages a text is written in, cheaply and offline: by script for Chinese,
 * Japanese, Korean, Hindi and Arabic (kana tells Japanese from Chinese), by the share of each
 * language's most frequent function words for the Latin-script ones. Good enough to say which
 * language a quoted passage is in and whether a question is in the knowledge base's language;
 * not a general language identifier (short or mixed texts may come out undefined).
 */

/**
 * Frequent function words of the Latin-script offered languages. Some words are in several lists
 * ("a" is English, Spanish, French, Italian and Portuguese; "i" English and Italian): latinTally
 * shares such a word out between its languages.
 */
const FUNCTION_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  en: new Set(
    'i a me the and is are of to in for with you your it this that be on not no can do does how what or from have has will an my we our they their his her he she at by if should would could were been there about which who when where why any some get need want please am was but so than then after before into'.split(' '),
  ),
  es: new Set('el la los las de del que y en es un una por para con no se su al lo como más pero sus le ya o este sí porque esta cómo qué puedo'.split(' ')),
  fr: new Set('le la les de des du et est un une pour dans en que qui ne pas sur au aux avec ce cette il elle vous nous son sa ses comment mon ma'.split(' ')),
  de: new Set('der die das und ist nicht ein eine zu den von mit sich des auf für im dem auch es an werden aus er sie wie ich kann man'.split(' ')),
  pt: new Set('o a os as de do da dos das e é um uma para com não que no na em por se mais como ao seu sua ou isso meu minha você'.split(' ')),
  it: new Set('il lo la gli le di del della e è un una per con non che nel nella da si come al sono mi ma anche questo ho posso'.split(' ')),
};

/**
 * Words of a question in Spanish, French, German, Italian or Portuguese that name no topic
 * (articles, pronouns, prepositions, question words including "how many", "how long", "can I", "I
 * have", "I want", "I need", the verbs of a "how long" question ("dauert", "tarda", "dure"),
 * greetings): dropped from such a question like the English stop words
 * (query-terms.ts), so they neither weigh in what a passage must cover nor get matched against
 * English knowledge. Accented and unaccented spellings.
 */
const QUESTION_FILLERS: Readonly<Record<string, string>> = {
  es: 'cómo como qué que cuál cual cuáles cuales cuándo cuando dónde donde por porqué quién quien puedo puede pueden podemos hacer hago hace tengo tiene mi mis tu tus su sus un una unos unas el la los las lo le les de del en y o u a al con sin para se es son está esta están hay no sí si este esto ese esa eso me te nos muy más mas ya hay cuánto cuanto cuánta cuanta cuántos cuantos cuántas cuantas adónde adonde quiero quiere queremos quieren necesito necesita necesitamos necesitan debo debe debemos deben podría podria podrían puedes tienes tenemos tienen tener obtener conseguir consigo saber sé sabe hola gracias favor usted ustedes yo mí mío mía nuestro nuestra nuestros nuestras otro otra otros otras algo alguien todo todos toda todas cada también tambien ahora aquí aqui allí alli sobre entre hasta desde durante ser estar fue era sido he has ha hemos han había habia voy vas va vamos van tarda tardan tardar demora demoran demorar dura duran durar',
  fr: 'comment pourquoi quel quelle quels quelles quand où ou qui que quoi qu est ce cette ces je j tu il elle nous vous ils elles on mon ma mes ton ta tes son sa ses le la les l un une des de d du et à a au aux avec sans pour par sur dans en ne n pas plus peux peut puis faire fait est sont y s se me m combien ai as avons avez ont avoir être etre suis es sommes êtes etes été ete était etait veux veut voulons voulez veulent voudrais dois doit devons devez doivent faut besoin obtenir savoir sais sait bonjour salut merci svp plaît plait votre vos notre nos leur leurs moi toi lui eux ça ca cela ceci quelque quelqu chose tout tous toute toutes chaque aussi maintenant ici là entre depuis pendant jusqu vers chez très tres trop encore déjà deja dure durent durer prend prennent',
  de: 'wie warum was wann wo wer welche welcher welches welchen kann können könnte ich du er sie es wir ihr mein meine meinen dein ein eine einen einem einer der die das den dem des und oder mit ohne für fur von zu zum zur im in auf an ist sind nicht kein keine man bei aus mich mir sich muss gibt es wird werden nach vor über uber bis um viele viel wieviel wieviele wievielen habe hast hat haben habt hatte hatten bin bist seid war waren sein möchte mochte möchten mochten will willst wollen brauche brauchst braucht brauchen soll sollte sollen darf dürfen durfen bekomme bekommt bekommen wissen weiß weiss hallo danke bitte ihre ihren unser unsere unseren euer dies diese dieser dieses jede jeder jedes alle alles etwas jemand auch noch schon jetzt hier dort denn dann sehr als so lange dauert dauern gilt gelten',
  it: 'come perché perche cosa che quale quali quando dove chi posso può puo possiamo fare faccio il lo la l i gli le un una uno di del della dello dei degli delle e ed o a al alla con senza per su in è e sono non mi mio mia miei si ci ne quanti quante quanto quanta ho hai ha abbiamo avete hanno avere essere sei siamo siete era stato voglio vuoi vuole vogliamo vorrei devo deve dobbiamo devono bisogno serve ottenere sapere so sa ciao grazie favore prego tuo tua tuoi tue suo sua suoi sue nostro nostra nostri nostre vostro questo questa questi queste quello quella ogni tutto tutti tutte anche ora adesso qui qua lì là tra fra dal dalla molto più piu già gia ancora dura durano durare impiega impiegano ci vuole',
  pt: 'como porque por que qual quais quando onde quem posso pode podemos fazer faço faco eu meu minha meus minhas o a os as um uma uns umas de do da dos das e ou em no na nos nas com sem para é e são sao não nao se ao à quantos quantas quanto quanta tenho tem temos têm ter tive sou somos estou está esta estamos ser estar foi era quero quer queremos gostaria preciso precisa precisamos devo deve devemos obter conseguir consigo saber sei sabe olá ola oi obrigado obrigada favor você voce vocês voces seu sua seus suas nosso nossa nossos nossas este estes estas esse essa isso isto aquele aquela cada todo todos toda todas também tambem agora aqui ali lá entre até ate desde muito mais já ja ainda demora demoram demorar leva levam dura duram durar',
};
const FILLERS: ReadonlyMap<string, ReadonlySet<string>> = new Map(Object.entries(QUESTION_FILLERS).map(([lang, words]) => [lang, new Set(words.split(' '))]));

/** Whether `word` (lower case) is a topic-less word of a question in `lang` (es, fr, de, it, pt). */
export function isQuestionFiller(lang: string, word: string): boolean {
  return FILLERS.get(lang)?.has(word) ?? false;
}

/** The Latin-script offered languages other than English. */
export const LATIN_LANGUAGES: readonly string[] = ['es', 'fr', 'de', 'it', 'pt'];

/**
 * The words of a text that can tell its language: runs of letters between spaces and punctuation,
 * never the letters inside a code ("an-3-xq7de", "A12B-E3", an order number), whose single letters
 * ("a", "e", "o") would count as Spanish, Italian or Portuguese words.
 */
function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((w) => w !== '' && !/\p{N}/u.test(w));
}

/** The non-Latin offered language whose script `sample` is mostly written in, if any. */
function scriptLanguageOf(sample: string): string | undefined {
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
  return letters > 0 && letters * 2 >= latin / 3 ? script : undefined;
}

/** The Latin-script languages whose common words (FUNCTION_WORDS or question fillers) include `word`. */
function languagesOfWord(word: string): string[] {
  return Object.keys(FUNCTION_WORDS).filter((lang) => FUNCTION_WORDS[lang].has(word) || (FILLERS.get(lang)?.has(word) ?? false));
}

/**
 * The Latin-script language with the most evidence in `words`, its score and the runner-up's. A
 * word counts 1 for the one language it belongs to, and is shared out between several ("a": a
 * fifth to each of English, Spanish, French, Italian and Portuguese): a word every language has
 * tells little, and the English "I" and "a" are no more Italian than English. `words` is how
 * many of the best language's words the text has, whole or shared.
 */
function latinTally(words: readonly string[]): { best: string | undefined; score: number; second: number; words: number } {
  const scores = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const w of words) {
    // A question's own filler words count too ("quantos", "tenho", "eu"): a short question often
    // has only one word of the shortlist, shared by several languages ("de").
    const langs = languagesOfWord(w);
    for (const lang of langs) {
      scores.set(lang, (scores.get(lang) ?? 0) + 1 / langs.length);
      counts.set(lang, (counts.get(lang) ?? 0) + 1);
    }
  }
  let best: string | undefined;
  let score = 0;
  let second = 0;
  for (const [lang, value] of scores) {
    if (value > score) {
      second = score;
      score = value;
      best = lang;
    } else if (value > second) second = value;
  }
  return { best, score, second, words: best ? (counts.get(best) ?? 0) : 0 };
}

/** The offered language (ISO 639-1 code) `text` is written in, or undefined when it cannot tell. */
export function detectLanguage(text: string): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const sample = text.slice(0, 4000);
  const script = scriptLanguageOf(sample);
  if (script) return script;
  const words = wordsOf(sample);
  if (words.length === 0) return undefined;
  const { best, score, second } = latinTally(words);
  // Letters with diacritics only some languages use break a tie (a short question).
  if (score === 0 || score - second < 1e-9) {
    if (/[ñ¿¡]/.test(sample)) return 'es';
    // French sets a space before ? ! : ;
    if (/\p{L} [?!;:]/u.test(sample)) return 'fr';
    if (/[ãõ]/.test(sample)) return 'pt';
    if (/[äöüß]/.test(sample)) return 'de';
    if (/[çœ]|[éèêà]\b/.test(sample)) return 'fr';
    return score === 0 ? undefined : best;
  }
  return best;
}

/**
 * The language `text` is surely written in, for answering a visitor in it on their behalf (and the
 * chat page's switching its interface to it): a non-Latin script, or a Latin-script language with
 * at least two of its words that outweighs every other at least twice ("no", "ciao", "come on" or
 * "a la carte" switch nothing, and "Can I bring a guest?" stays English: its "I" and "a" are
 * English as much as Italian). Undefined otherwise.
 */
export function surelyWrittenIn(text: string): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const sample = text.slice(0, 4000);
  const script = scriptLanguageOf(sample);
  if (script) return script;
  const { best, score, second, words } = latinTally(wordsOf(sample));
  return words >= 2 && score >= SURE_SCORE && score >= SURE_LEAD * second ? best : undefined;
}

/** Evidence surelyWrittenIn asks for: a score (words shared between languages count a share) and its lead over the runner-up. */
const SURE_SCORE = 1.5;
const SURE_LEAD = 2;
