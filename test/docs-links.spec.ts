/**
 * The README and docs/ stay navigable: every relative link and image points at a file that
 * exists, every #anchor at a heading of its target (GitHub's heading ids), and the README stays a
 * front door a newcomer reads in a few minutes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const DOCS = path.join(ROOT, 'docs');
const README_MAX_LINES = 150;

const documents = [path.join(ROOT, 'README.md'), ...fs.readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => path.join(DOCS, f))];

/** The markdown outside fenced code blocks and inline code (links there are examples, not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's id of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = match[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

interface Link {
  document: string;
  target: string;
  image: boolean;
}

export function linksOf(document: string, markdown: string): Link[] {
  const links: Link[] = [];
  for (const match of prose(markdown).matchAll(/(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ document, target: match[2], image: match[1] === '!' });
  }
  return links;
}

/** What is wrong with a link, or undefined when it leads somewhere. */
function problemOf(link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined; // http:, https:, mailto: are not checked offline
  const [file, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const resolved = file === '' ? link.document : path.resolve(path.dirname(link.document), decodeURIComponent(file));
  if (!fs.existsSync(resolved)) return `${file} does not exist`;
  if (link.image && !/\.(png|jpe?g|svg|gif|webp)$/i.test(resolved)) return `${file} is not an image`;
  if (anchor !== undefined) {
    if (!resolved.endsWith('.md')) return `#${anchor} points into a file that is not markdown`;
    if (!headingIds(fs.readFileSync(resolved, 'utf8')).has(anchor)) return `${path.relative(ROOT, resolved)} has no heading #${anchor}`;
  }
  return undefined;
}

describe('documentation links', () => {
  it('finds the README and the docs', () => {
    expect(documents.map((d) => path.relative(ROOT, d))).toEqual(
      expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/operations.md', 'docs/api.md', 'docs/answers.md', 'docs/security.md', 'docs/development.md', 'docs/architecture.md']),
    );
  });

  it.each(documents.map((d) => [path.relative(ROOT, d), d]))('%s has no broken relative link, anchor or image', (_name, document) => {
    const problems = linksOf(document, fs.readFileSync(document, 'utf8'))
      .map((link) => ({ link, problem: problemOf(link) }))
      .filter((p) => p.problem !== undefined)
      .map((p) => `(${p.link.target}): ${p.problem}`);
    expect(problems).toEqual([]);
  });

  it('the README links every document of docs/', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(linksOf(path.join(ROOT, 'README.md'), readme).map((l) => l.target.split('#')[0]));
    const unlinked = fs.readdirSync(DOCS).filter((f) => f.endsWith('.md') && !linked.has(`docs/${f}`));
    expect(unlinked).toEqual([]);
  });

  it(`the README is at most ${README_MAX_LINES} lines`, () => {
    const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('the checker catches a missing file, a missing anchor and a missing image', () => {
    const readme = path.join(ROOT, 'README.md');
    const found = linksOf(readme, '[a](docs/nope.md) [b](docs/api.md#no-such-heading) ![c](docs/images/nope.png) [d](docs/api.md#post-interact) `[e](nope.md)`');
    expect(found.map(problemOf)).toEqual(['docs/nope.md does not exist', 'docs/api.md has no heading #no-such-heading', 'docs/images/nope.png does not exist', undefined]);
  });

  it('heading ids follow GitHub: punctuation and code marks dropped, repeats numbered', () => {
    expect([...headingIds('# Measuring it: `npm run eval`\n## `TRUST_PROXY`\n## Hybrid retrieval (optional)\n## Tests\n### Tests\n```\n# not a heading\n```')]).toEqual([
      'measuring-it-npm-run-eval',
      'trust_proxy',
      'hybrid-retrieval-optional',
      'tests',
      'tests-1',
    ]);
  });
});
