import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';

const components: Components = {
  // Links in replies open in a new tab and never hand the page a window.opener.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
};

/**
 * A reply rendered as markdown, safely: raw HTML in the text is dropped (skipHtml), and
 * react-markdown's default URL filter removes javascript: and other unsafe links.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <ReactMarkdown skipHtml components={components}>
      {text}
    </ReactMarkdown>
  );
});
