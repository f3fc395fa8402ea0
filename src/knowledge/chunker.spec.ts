import { chunkContent } from './chunker';

/** A sentence of `n` distinct words ending in a full stop; `tag` keeps words unique per sentence. */
function sentence(n: number, tag: string): string {
  return `${Array.from({ length: n }, (_, i) => `${tag}w${i}`).join(' ')}.`;
}

function paragraph(tag: string, lengths: number[]): string {
  return lengths.map((n, i) => sentence(n, `${tag}s${i}`)).join(' ');
}

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

describe('chunkContent', () => {
  it('keeps a short item as one chunk with its text intact', () => {
    const text = 'Refunds are issued within 5 days.\n\nContact us if it takes longer.';
    expect(chunkContent(text)).toEqual([{ ord: 0, text, tokenCount: 12, headingPath: [] }]);
  });

  it('returns one empty chunk for empty or whitespace-only content, so the title stays searchable', () => {
    for (const content of ['', '   \r\n\t  ', null, undefined]) {
      expect(chunkContent(content)).toEqual([{ ord: 0, text: '', tokenCount: 0, headingPath: [] }]);
    }
  });

  it('normalises Windows and old Mac line endings', () => {
    const [chunk] = chunkContent('First line.\r\nSecond line.\r\rNew paragraph.');
    expect(chunk.text).toBe('First line.\nSecond line.\n\nNew paragraph.');
    expect(chunk.text).not.toMatch(/\r/);
  });

  it('splits a long multi-paragraph item into 120-220 word passages in order', () => {
    const content = Array.from({ length: 12 }, (_, p) => paragraph(`p${p}`, [14, 22, 9, 17])).join('\r\n\r\n');
    const chunks = chunkContent(content);
    expect(chunks.length).toBeGreaterThan(3);
    chunks.forEach((chunk, i) => {
      expect(chunk.ord).toBe(i);
      expect(chunk.tokenCount).toBe(words(chunk.text).length);
      expect(chunk.tokenCount).toBeLessThanOrEqual(220);
      if (i < chunks.length - 1) expect(chunk.tokenCount).toBeGreaterThanOrEqual(120);
    });
  });

  it('cuts only between sentences when sentences are available', () => {
    const content = Array.from({ length: 10 }, (_, p) => paragraph(`p${p}`, [14, 22, 9, 17])).join('\n\n');
    for (const chunk of chunkContent(content)) {
      expect(chunk.text.trimEnd()).toMatch(/\.$/);
      expect(chunk.text).toMatch(/^p\d+s\d+w0 /);
    }
  });

  it('repeats a little of the previous passage so nothing is lost at a boundary', () => {
    const content = Array.from({ length: 10 }, (_, p) => paragraph(`p${p}`, [14, 22, 9, 17])).join('\n\n');
    const chunks = chunkContent(content);
    for (let i = 1; i < chunks.length; i++) {
      const previous = words(chunks[i - 1].text);
      const current = words(chunks[i].text);
      const firstWord = current[0];
      const at = previous.lastIndexOf(firstWord);
      expect(at).toBeGreaterThan(0);
      const overlap = previous.slice(at);
      expect(overlap.length).toBeLessThanOrEqual(30);
      expect(current.slice(0, overlap.length)).toEqual(overlap);
    }
  });

  it('covers every word of the content, in order, without splitting any word', () => {
    const content = Array.from({ length: 9 }, (_, p) => paragraph(`p${p}`, [30, 45, 12, 60])).join('\n\n');
    const original = words(content);
    const seen: string[] = [];
    for (const chunk of chunkContent(content)) {
      for (const word of words(chunk.text)) {
        expect(original).toContain(word);
        if (!seen.includes(word)) seen.push(word);
      }
    }
    expect(seen).toEqual(original);
  });

  it('splits a very long line without punctuation at word boundaries', () => {
    const line = Array.from({ length: 1500 }, (_, i) => `token${i}`).join(' ');
    const chunks = chunkContent(line);
    expect(chunks.length).toBeGreaterThanOrEqual(7);
    const original = new Set(words(line));
    for (const chunk of chunks) {
      expect(chunk.tokenCount).toBeLessThanOrEqual(220);
      for (const word of words(chunk.text)) expect(original.has(word)).toBe(true);
    }
    expect(words(chunks[chunks.length - 1].text).pop()).toBe('token1499');
  });

  it('does not leave a stub as the last passage', () => {
    const content = paragraph('a', Array.from({ length: 24 }, () => 10)); // 240 words
    const chunks = chunkContent(content);
    expect(chunks).toHaveLength(2);
    for (const chunk of chunks) expect(chunk.tokenCount).toBeGreaterThanOrEqual(100);
  });

  it('keeps a single enormous "word" whole rather than cutting it', () => {
    const blob = 'x'.repeat(5000);
    const content = `${sentence(200, 'a')} ${blob} ${sentence(200, 'b')}`;
    const chunks = chunkContent(content);
    expect(chunks.some((c) => words(c.text).includes(blob))).toBe(true);
    for (const chunk of chunks) for (const word of words(chunk.text)) expect(word === blob || word.length < 20).toBe(true);
  });
});

describe('chunkContent: Markdown structure', () => {
  const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
  const doc = [
    '# Gift wrapping',
    '',
    `${words(60, 'intro')}.`,
    '',
    '## Prices',
    '',
    ...Array.from({ length: 30 }, (_, i) => `${i + 1}. Style ${i} costs ${i} dollars and ${words(6, `l${i}x`)}`),
    '',
    '| Style | Price |',
    '| --- | --- |',
    ...Array.from({ length: 40 }, (_, i) => `| style ${i} with ${words(4, `t${i}x`)} | $${i} |`),
    '',
    '## Code',
    '',
    '```',
    'first line',
    '',
    'after a blank line',
    '```',
  ].join('\n');
  const chunks = chunkContent(doc);

  it('never cuts a list item, a table row or a code block, and starts a new passage at a heading', () => {
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      for (const line of chunk.text.split('\n')) {
        if (line.startsWith('|')) expect(line).toMatch(/^\| (Style|---|style \d+ with .*) \| (Price|---|\$\d+) \|$/);
        if (/^\d+\./.test(line)) expect(line).toMatch(/^\d+\. Style \d+ costs \d+ dollars and (\S+ ){5}\S+$/);
      }
    }
    const code = chunks.find((c) => c.text.includes('first line'))!;
    expect(code.text).toContain('```\nfirst line\n\nafter a blank line\n```');
    expect(code.text.startsWith('_Gift wrapping › Code_\n\n## Code')).toBe(true);
  });

  it('carries the heading path on passages under a heading', () => {
    const prices = chunks.filter((c) => c.text.includes('| $'));
    expect(prices.length).toBeGreaterThan(0);
    for (const chunk of prices) {
      expect(chunk.headingPath).toEqual(['Gift wrapping', 'Prices']);
      expect(chunk.text.startsWith('_Gift wrapping › Prices_\n\n')).toBe(true);
    }
  });

  it("names an attachment's passages by the attachment", () => {
    const [chunk] = chunkContent('Warranty claims\nEvery product has a two year warranty.', { headingPath: ['warranty.txt'] });
    expect(chunk.text).toBe('_warranty.txt_\n\nWarranty claims\nEvery product has a two year warranty.');
    expect(chunk.headingPath).toEqual(['warranty.txt']);
  });
});
