/**
 * The corpora `npm run eval` reads from Debian packages (python3-doc, git-doc, zlib1g-dev,
 * debian-faq; .ci/run installs them): one knowledge item per FAQ question, markup turned into plain text, and every
 * item a question of eval/questions/ names is there (a renamed entry would silently count as a miss).
 */
import { describeWith, NEEDS } from './support/requirements';
import { loadCorpora, parseDebianFaq, parseGitFaq, parsePythonFaq, parseZlibFaq } from '../eval/corpora';

describe('eval corpora from the Debian FAQs', () => {
  describeWith([NEEDS.debianFaqs], 'the installed FAQs', () => {
    it('splits each FAQ into one item per question, with the questions of eval/questions/ all present', () => {
      const corpora = loadCorpora();
      const byName = new Map(corpora.map((c) => [c.name, c]));
      expect(byName.get('python-faq')!.items.length).toBeGreaterThan(150);
      expect(byName.get('git-faq')!.items).toHaveLength(20);
      expect(byName.get('zlib-faq')!.items).toHaveLength(44);
      expect(byName.get('debian-faq')!.items.length).toBeGreaterThan(140);
      // Imported through the website importer when the eval runs: its pages, every expected one served.
      expect(byName.get('python-docs-site')!.site!.pages.length).toBeGreaterThan(30);
      for (const corpus of corpora) {
        expect(corpus.questions.filter((q) => q.expect.length > 0).length).toBeGreaterThanOrEqual(40);
        for (const item of corpus.items) {
          expect(item.title.length).toBeGreaterThan(0);
          expect(item.content.length).toBeGreaterThan(0);
        }
      }
      for (const name of ['python-faq', 'git-faq', 'zlib-faq', 'debian-faq']) {
        const questions = byName.get(name)!.questions;
        expect(questions.filter((q) => q.expect.length > 0 && q.lang !== 'en').length).toBeGreaterThanOrEqual(15);
        expect(questions.filter((q) => q.expect.length === 0).length).toBeGreaterThanOrEqual(15);
      }
    });

  });

  it('turns reStructuredText, AsciiDoc and the numbered plain-text FAQs into plain text', () => {
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

    // The table of contents is skipped; numbers are followed by no-break spaces; a question may wrap.
    const debian = parseDebianFaq(
      'Table of Contents\n\n1. Basics\n    1.1.\u00a0What is it?\n\nChapter\u00a01.\u00a0Basics\n\n1.1.\u00a0What is it?\n\n    A distribution.\n\n    Free.\n\n7.12.\u00a0How do I put a package\non hold?\n\n    Use apt-mark.\n\nChapter\u00a02.\u00a0More\n',
    );
    expect(debian.map((i) => [i.key, i.title, i.content])).toEqual([
      ['1.1', 'What is it?', 'A distribution.\n\nFree.'],
      ['7.12', 'How do I put a package on hold?', 'Use apt-mark.'],
    ]);
  });
});
