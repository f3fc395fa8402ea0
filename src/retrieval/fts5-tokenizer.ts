/**
 * FTS5's `porter unicode61 remove_diacritics 2` tokenizer (sqlite3.c 3.44, fts5_tokenize.c), ported so
 * that query words, gap terms and the relevance floor stem exactly as the SQLite index does.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The tokens FTS5 makes of `text`: runs of letters, digits and private-use characters, folded to
 * lower case without diacritics, each porter-stemmed. Exact for ASCII; outside ASCII, Unicode
 * case folding and NFD mark removal stand in for SQLite's own tables (they agree on the Latin,
 * Greek and Cyrillic letters the spec checks).
 */
export function fts5Tokens(text: string): string[] {
  if (typeof text !== 'string' || text.length === 0) return [];
  // eslint-disable-next-line no-control-regex
  const folded = /^[\x00-\x7f]*$/.test(text) ? text.toLowerCase() : text.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '').normalize('NFC');
  const tokens = folded.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
  return tokens.map((token) => decoder.decode(porterStem(encoder.encode(token))));
}

const A = 97;
const E = 101;
const I = 105;
const O = 111;
const U = 117;
const Y = 121;

function isVowel(c: number, yIsVowel: boolean): boolean {
  return c === A || c === E || c === I || c === O || c === U || (yIsVowel && c === Y);
}

/** fts5PorterGobbleVC: skips a run of consonants then of vowels; returns the index after the next consonant, or 0. */
function gobbleVC(z: Uint8Array, start: number, n: number, prevConsonant: boolean): number {
  let consonant = prevConsonant;
  let i = 0;
  for (; i < n; i++) {
    consonant = !isVowel(z[start + i], consonant);
    if (!consonant) break;
  }
  for (i++; i < n; i++) {
    consonant = !isVowel(z[start + i], consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** m > 0 */
function mGt0(z: Uint8Array, n: number): boolean {
  return gobbleVC(z, 0, n, false) !== 0;
}
/** m > 1 */
function mGt1(z: Uint8Array, n: number): boolean {
  const k = gobbleVC(z, 0, n, false);
  return k !== 0 && gobbleVC(z, k, n - k, true) !== 0;
}
/** m = 1 */
function mEq1(z: Uint8Array, n: number): boolean {
  const k = gobbleVC(z, 0, n, false);
  return k !== 0 && gobbleVC(z, k, n - k, true) === 0;
}
/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
function oStar(z: Uint8Array, n: number): boolean {
  const last = z[n - 1];
  if (last === 119 || last === 120 || last === Y) return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(z[i], consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}
/** m > 1 and (*S or *T) */
function mGt1SorT(z: Uint8Array, n: number): boolean {
  return (z[n - 1] === 115 || z[n - 1] === 116) && mGt1(z, n);
}
/** *v*: contains a vowel. */
function hasVowel(z: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(z[i], i > 0)) return true;
  return false;
}

/** The generated rules require the word to be strictly longer than the suffix. */
function endsWith(z: Uint8Array, n: number, suffix: string): boolean {
  if (n <= suffix.length) return false;
  for (let i = 0; i < suffix.length; i++) if (z[n - suffix.length + i] !== suffix.charCodeAt(i)) return false;
  return true;
}

type Rule = readonly [suffix: string, condition: (z: Uint8Array, n: number) => boolean, replacement: string];

/** Rules grouped by the word's second-to-last byte; within a group the first matching suffix decides. */
function applyRules(z: Uint8Array, n: number, rules: Readonly<Record<string, readonly Rule[]>>): number {
  const group = n >= 2 ? rules[String.fromCharCode(z[n - 2])] : undefined;
  if (!group) return n;
  for (const [suffix, condition, replacement] of group) {
    if (!endsWith(z, n, suffix)) continue;
    const stem = n - suffix.length;
    if (!condition(z, stem)) return n;
    for (let i = 0; i < replacement.length; i++) z[stem + i] = replacement.charCodeAt(i);
    return stem + replacement.length;
  }
  return n;
}

const STEP2: Readonly<Record<string, readonly Rule[]>> = {
  a: [['ational', mGt0, 'ate'], ['tional', mGt0, 'tion']],
  c: [['enci', mGt0, 'ence'], ['anci', mGt0, 'ance']],
  e: [['izer', mGt0, 'ize']],
  g: [['logi', mGt0, 'log']],
  l: [['bli', mGt0, 'ble'], ['alli', mGt0, 'al'], ['entli', mGt0, 'ent'], ['eli', mGt0, 'e'], ['ousli', mGt0, 'ous']],
  o: [['ization', mGt0, 'ize'], ['ation', mGt0, 'ate'], ['ator', mGt0, 'ate']],
  s: [['alism', mGt0, 'al'], ['iveness', mGt0, 'ive'], ['fulness', mGt0, 'ful'], ['ousness', mGt0, 'ous']],
  t: [['aliti', mGt0, 'al'], ['iviti', mGt0, 'ive'], ['biliti', mGt0, 'ble']],
};
const STEP3: Readonly<Record<string, readonly Rule[]>> = {
  a: [['ical', mGt0, 'ic']],
  s: [['ness', mGt0, '']],
  t: [['icate', mGt0, 'ic'], ['iciti', mGt0, 'ic']],
  u: [['ful', mGt0, '']],
  v: [['ative', mGt0, '']],
  z: [['alize', mGt0, 'al']],
};
const STEP4: Readonly<Record<string, readonly Rule[]>> = {
  a: [['al', mGt1, '']],
  c: [['ance', mGt1, ''], ['ence', mGt1, '']],
  e: [['er', mGt1, '']],
  i: [['ic', mGt1, '']],
  l: [['able', mGt1, ''], ['ible', mGt1, '']],
  n: [['ant', mGt1, ''], ['ement', mGt1, ''], ['ment', mGt1, ''], ['ent', mGt1, '']],
  o: [['ion', mGt1SorT, ''], ['ou', mGt1, '']],
  s: [['ism', mGt1, '']],
  t: [['ate', mGt1, ''], ['iti', mGt1, '']],
  u: [['ous', mGt1, '']],
  v: [['ive', mGt1, '']],
  z: [['ize', mGt1, '']],
};

/** fts5PorterCb: the porter stem of a token (UTF-8 bytes); tokens under 3 or over 64 bytes pass through. */
function porterStem(token: Uint8Array): Uint8Array {
  if (token.length > 64 || token.length < 3) return token;
  const z = new Uint8Array(token.length + 8);
  z.set(token);
  let n = token.length;

  // Step 1A.
  if (z[n - 1] === 115) {
    if (z[n - 2] === E) {
      if ((n > 4 && z[n - 4] === 115 && z[n - 3] === 115) || (n > 3 && z[n - 3] === I)) n -= 2;
      else n -= 1;
    } else if (z[n - 2] !== 115) {
      n -= 1;
    }
  }

  // Step 1B.
  let removedEdIng = false;
  if (n >= 2 && z[n - 2] === E) {
    if (endsWith(z, n, 'eed')) {
      if (mGt0(z, n - 3)) n -= 1;
    } else if (endsWith(z, n, 'ed') && hasVowel(z, n - 2)) {
      n -= 2;
      removedEdIng = true;
    }
  } else if (n >= 2 && z[n - 2] === 110) {
    if (endsWith(z, n, 'ing') && hasVowel(z, n - 3)) {
      n -= 3;
      removedEdIng = true;
    }
  }
  if (removedEdIng) {
    const before = n >= 2 ? z[n - 2] : -1;
    if ((before === A && endsWith(z, n, 'at')) || (before === 98 && endsWith(z, n, 'bl')) || (before === I && endsWith(z, n, 'iz'))) {
      z[n++] = E;
    } else {
      const c = z[n - 1];
      if (!isVowel(c, false) && c !== 108 && c !== 115 && c !== 122 && n >= 2 && c === z[n - 2]) n -= 1;
      else if (mEq1(z, n) && oStar(z, n)) z[n++] = E;
    }
  }

  // Step 1C.
  if (z[n - 1] === Y && hasVowel(z, n - 1)) z[n - 1] = I;

  // Steps 2 to 4.
  n = applyRules(z, n, STEP2);
  n = applyRules(z, n, STEP3);
  n = applyRules(z, n, STEP4);

  // Step 5a.
  if (z[n - 1] === E && (mGt1(z, n - 1) || (mEq1(z, n - 1) && !oStar(z, n - 1)))) n -= 1;

  // Step 5b.
  if (n > 1 && z[n - 1] === 108 && z[n - 2] === 108 && mGt1(z, n - 1)) n -= 1;

  return z.slice(0, n);
}
