/**
 * The corpora `npm run eval` reads from Debian packages (python3-doc, git-doc, zlib1g-dev; .ci/run
 * installs them): one knowledge item per FAQ question, markup turned into plain text, and every
 * item a question of eval/questions/ names is there (a renamed entry would silently count as a miss).
 */
import { loadCorpora, parseGitFaq, parsePythonFaq, parseZlibFaq } from '../eval/corpora';

describe('eval corpora from the Debian FAQs', () => {
  it('splits each FAQ into one item per question, with the questions of eval/questions/ all present', () => {
    const corpora = loadCorpora();
    const byName = new Map(corpora.map((c) => [c.name, c]));
    expect(byName.get('python-faq')!.items.length).toBeGreaterThan(150);
    expect(byName.get('git-faq')!.items).toHaveLength(20);
    expect(byName.get('zlib-faq')!.items).toHaveLength(44);
    for (const corpus of corpora) {
      expect(corpus.questions.filter((q) => q.expect.length > 0).length).toBeGreaterThanOrEqual(40);
      for (const item of corpus.items) {
        expect(item.title.length).toBeGreaterThan(0);
        expect(item.content.length).toBeGreaterThan(0);
      }
    }
    for (const name of ['python-faq', 'git-faq', 'zlib-faq']) {
      const questions = byName.get(name)!.questions;
      expect(questions.filter((q) => q.expect.length > 0 && q.lang !== 'en').length).toBeGreaterThanOrEqual(15);
      expect(questions.filter((q) => q.expect.length === 0).length).toBeGreaterThanOrEqual(15);
    }
  });

  it('turns reStructuredText, AsciiDoc and the numbered plain-text FAQ into plain text', () => {
    const [python] = parsePythonFaq(
      'programming',
      'Core\n====\n\n.. _label:\n\nWhy does ``x`` fail?\n--------------------\n\nSee :func:`breakpoint` and `the docs <https://example.org>`_::\n\n   >>> x = 1\n',
    );
    expect(python).toMatchObject({ key: 'programming#Why does ``x`` fail?', title: 'Why does x fail?' });
    expect(python.content).toBe('See breakpoint and the docs:\n\n   >>> x = 1');

    const [git] = parseGitFaq('[[user-name]]\nWhat should I put in `user.name`?::\n\tYour name.\n+\nSee linkgit:git-config[1].\n\nHooks\n-----\n');
    expect(git).toMatchObject({ key: 'user-name', title: 'What should I put in user.name?', content: 'Your name.\n\nSee git-config(1).' });

    const zlib = parseZlibFaq(' 1. Is zlib Y2K-compliant?\n\n    Yes. zlib doesn\'t handle dates.\n\n 2. Where can I get a\n    Windows DLL version?\n\n    Compile it.\n');
    expect(zlib.map((i) => [i.key, i.title, i.content])).toEqual([
      ['1', 'Is zlib Y2K-compliant?', "Yes. zlib doesn't handle dates."],
      ['2', 'Where can I get a Windows DLL version?', 'Compile it.'],
    ]);
  });
});
