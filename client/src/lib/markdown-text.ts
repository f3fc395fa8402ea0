import remend from 'remend';
import removeMarkdown from 'remove-markdown';

/**
 * A reply still streaming ends half-way through its markdown (`**Returns`, `` `npm st``,
 * `[the policy](https://ex`): close what is open so it renders as it will once complete rather
 * than showing the markers. An unfinished link shows its text only.
 */
export function completePartialMarkdown(text: string): string {
  return remend(text, { linkMode: 'text-only', katex: false, inlineKatex: false });
}

/** Markdown as the plain words a reader sees (list previews): no `##`, `**`, link targets or image addresses. */
export function markdownToPlainText(markdown: string): string {
  return removeMarkdown(markdown, { gfm: true, useImgAltText: true })
    .replace(/\s+/g, ' ')
    .trim();
}
