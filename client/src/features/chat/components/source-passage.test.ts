import { describe, expect, it } from 'vitest';
import { findPassage, splitAtPassage } from './source-passage';

describe('findPassage / splitAtPassage', () => {
  it('finds the passage whatever its white space, and cuts the item on the blocks around it', () => {
    const content = 'First block.\n\nSecond  block starts here\nand goes on.\n\nThird block.';
    expect(findPassage(content, 'block starts here and goes on.')).toEqual({ start: 22, end: 52 });
    expect(splitAtPassage(content, 'block starts here and goes on.')).toEqual({
      before: 'First block.\n\n',
      passage: 'Second  block starts here\nand goes on.',
      after: '\n\nThird block.',
    });
  });

  it('leaves out the block the passage only starts in when it runs on (the tail of the passage before it)', () => {
    const content = 'One. Two. Three.\n\nFour. Five.\n\nSix.';
    expect(splitAtPassage(content, 'Three. Four. Five.')).toEqual({ before: 'One. Two. Three.\n\n', passage: 'Four. Five.', after: '\n\nSix.' });
    // Within one block it keeps that block.
    expect(splitAtPassage(content, 'Two. Three.')!.passage).toBe('One. Two. Three.');
  });

  it('null when the passage is not in the item (or empty)', () => {
    expect(splitAtPassage('Some text.', 'Other text.')).toBeNull();
    expect(splitAtPassage('Some text.', '   ')).toBeNull();
  });

  it('never cuts inside a fenced code block', () => {
    const content = 'Intro.\n\n```bash\nstep one\n\nstep two\n```\n\nOutro.';
    const split = splitAtPassage(content, 'step two')!;
    expect(split.passage).toBe('```bash\nstep one\n\nstep two\n```');
    expect(split.before).toBe('Intro.\n\n');
    expect(split.after).toBe('\n\nOutro.');
  });

  it('finds a passage the chunker sent with its heading path line first', () => {
    const content = '## Gift wrapping\n\nIntro.\n\n### Prices\n\n1. Paper: $3\n2. Box: $5';
    const split = splitAtPassage(content, '_Gift wrapping › Prices_\n\n1. Paper: $3\n2. Box: $5')!;
    expect(split.passage).toBe('1. Paper: $3\n2. Box: $5');
    expect(split.before).toBe('## Gift wrapping\n\nIntro.\n\n### Prices\n\n');
  });
});
