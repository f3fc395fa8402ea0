import { describe, expect, it } from 'vitest';
import { markdownToPlainText } from './markdown-text';

describe('markdownToPlainText (list previews)', () => {
  it('shows the words, not the markdown: no heading marks, emphasis, link targets or image addresses', () => {
    const text = markdownToPlainText('## Returns\n\n**Items** can be _returned_ within [30 days](https://example.com/returns).\n\n- Keep the receipt\n\n![box](https://x.example/box.png)');
    expect(text).toBe('Returns Items can be returned within 30 days. Keep the receipt box');
  });
});
