import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Markdown } from './Markdown';

describe('Markdown reply direction', () => {
  it('each text block takes its direction from its own text (an English passage in an Arabic reply, and back)', () => {
    const { container } = render(
      <div dir="rtl">
        <Markdown text={'إليك ما وجدته في قاعدة المعرفة لدينا:\n\n**Resetting your password** We send a link valid for 60 minutes.\n\n- Open it.\n- مرحبا\n\n> Quoted.\n\n| a | b |\n|---|---|\n| x | y |'} />
      </div>,
    );
    const blocks = [...container.querySelectorAll('p, li, blockquote, td, th')];
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    for (const block of blocks) expect([block.tagName, block.getAttribute('dir')]).toEqual([block.tagName, 'auto']);
    // Code keeps its fixed left-to-right block.
    const code = render(<Markdown text={'```\nnpm start\n```'} />).container.querySelector('.code-block');
    expect(code?.getAttribute('dir')).toBe('ltr');
  });
});
