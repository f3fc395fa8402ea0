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

describe('Markdown reply safety and streaming', () => {
  it('never loads an image in a reply: it shows as a link with its alt text, or its address', () => {
    const { container } = render(<Markdown text={'Chart: ![sales chart](https://any-host.example/x.png?d=secret) and ![](https://any-host.example/y.png)'} />);
    expect(container.querySelector('img')).toBeNull();
    const links = [...container.querySelectorAll('a.image-link')];
    expect(links.map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['sales chart', 'https://any-host.example/x.png?d=secret'],
      ['https://any-host.example/y.png', 'https://any-host.example/y.png'],
    ]);
  });

  it('while streaming, an unfinished bold or link renders as it will when complete, with no raw markers', () => {
    const { container } = render(<Markdown text={'Steps: **Returns are accepted within 30 days, see [the policy](https://exa'} streaming />);
    expect(container.textContent).not.toContain('**');
    expect(container.textContent).not.toContain('](');
    expect(container.querySelector('strong')?.textContent).toContain('Returns are accepted');
  });
});
