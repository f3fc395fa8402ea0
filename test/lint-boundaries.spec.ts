/**
 * The structural lint (eslint.config.mjs, `npm run lint`) must fail when a boundary is broken:
 * each case lints a real file of the tree with one import added (in memory, through ESLint's
 * lintText, so nothing on disk changes) and expects the rule's error; the same file as it stands
 * must lint clean. ESLint runs in a child Node process: its flat config is an ES module, which
 * jest's CommonJS runtime cannot import.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

interface Case {
  name: string;
  file: string;
  /** Lines added after the file's own imports (at its top when it has none). */
  add?: string;
}

interface Result {
  name: string;
  messages: { ruleId: string | null; message: string }[];
}

const CASES: Case[] = [
  { name: 'retrieval as it stands', file: 'src/retrieval/relevance.ts' },
  {
    name: 'retrieval importing knowledge',
    file: 'src/retrieval/relevance.ts',
    add: "import { SqliteSearchIndex } from '../knowledge/sqlite-search-index';\nexport const index = SqliteSearchIndex;",
  },
  { name: 'dedupe-key as it stands', file: 'src/retrieval/dedupe-key.ts' },
  {
    name: 'a circle through query-terms',
    file: 'src/retrieval/dedupe-key.ts',
    add: "import { extractQueryTerms } from './query-terms';\nexport const terms = extractQueryTerms;",
  },
  { name: 'reply-frames as it stands', file: 'src/conversations/reply-frames.ts' },
  {
    name: 'a circle between the reply stores',
    file: 'src/conversations/reply-frames.ts',
    add: "import { ReplyStreamService } from './reply-streams';\nexport const service = ReplyStreamService;",
  },
  { name: 'shared as it stands', file: 'src/shared/contracts/chat.ts' },
  {
    name: 'shared importing the server',
    file: 'src/shared/contracts/chat.ts',
    add: "import { ChatService } from '../../chat/chat.service';\nexport const chat = ChatService;",
  },
  { name: 'admin security tab as it stands', file: 'client/src/features/admin/security/SecurityTab.tsx' },
  {
    name: 'admin importing auth internals',
    file: 'client/src/features/admin/security/SecurityTab.tsx',
    add: "import { CodeInput } from '../../auth/components/CodeInput';\nexport const input = CodeInput;",
  },
  {
    name: 'a console tab importing another tab',
    file: 'client/src/features/admin/analytics/AnalyticsTab.tsx',
    add: "import { BudgetsTab } from '../budgets/BudgetsTab';\nexport const budgets = BudgetsTab;",
  },
  {
    name: 'the widget importing chat internals',
    file: 'client/src/features/widget/frame/WidgetFrame.tsx',
    add: "import { Markdown } from '../../chat/components/Markdown';\nexport const markdown = Markdown;",
  },
];

/** The text of a case: the file with `add` inserted after its last top-level import. */
function textOf(c: Case): string {
  const source = readFileSync(join(ROOT, c.file), 'utf8');
  if (!c.add) return source;
  const lines = source.split('\n');
  let last = -1;
  lines.forEach((line, i) => {
    if (/^import\s/.test(line) || /^\} from '/.test(line)) last = i;
  });
  lines.splice(last + 1, 0, c.add);
  return lines.join('\n');
}

function lint(cases: Case[]): Map<string, Result['messages']> {
  const script = `
    const { ESLint } = require('eslint');
    const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    (async () => {
      const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
      const out = [];
      for (const c of input) {
        const [result] = await eslint.lintText(c.text, { filePath: c.file });
        out.push({ name: c.name, messages: result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message })) });
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((error) => { console.error(error); process.exit(1); });`;
  const stdin = JSON.stringify(cases.map((c) => ({ name: c.name, file: join(ROOT, c.file), text: textOf(c) })));
  const stdout = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, input: stdin, encoding: 'utf8', maxBuffer: 16 << 20 });
  return new Map((JSON.parse(stdout) as Result[]).map((r) => [r.name, r.messages]));
}

describe('the structural lint (eslint.config.mjs)', () => {
  let results: Map<string, Result['messages']>;

  beforeAll(() => {
    results = lint(CASES);
  }, 180_000);

  const rulesOf = (name: string) => (results.get(name) ?? [{ ruleId: 'missing result', message: name }]).map((m) => m.ruleId);

  it('passes the files as they stand', () => {
    for (const c of CASES.filter((c) => !c.add)) expect({ file: c.file, messages: results.get(c.name) }).toEqual({ file: c.file, messages: [] });
  });

  it('fails when retrieval/ imports knowledge/', () => {
    expect(rulesOf('retrieval importing knowledge')).toContain('import-x/no-restricted-paths');
  });

  it('fails on an import circle in retrieval/', () => {
    expect(rulesOf('a circle through query-terms')).toContain('import-x/no-cycle');
  });

  it('fails on an import circle between the reply stores', () => {
    expect(rulesOf('a circle between the reply stores')).toContain('import-x/no-cycle');
  });

  it('fails when src/shared imports the server', () => {
    expect(rulesOf('shared importing the server')).toContain('import-x/no-restricted-paths');
  });

  it('fails when the admin console imports auth internals instead of auth/index.ts', () => {
    expect(rulesOf('admin importing auth internals')).toContain('import-x/no-restricted-paths');
  });

  it('fails when a console tab imports another tab', () => {
    expect(rulesOf('a console tab importing another tab')).toContain('import-x/no-restricted-paths');
  });

  it('fails when the widget imports chat internals instead of chat/index.ts', () => {
    expect(rulesOf('the widget importing chat internals')).toContain('import-x/no-restricted-paths');
  });
});
