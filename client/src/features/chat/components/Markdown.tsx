import { memo, useState, type ComponentPropsWithoutRef, type ReactNode } from 'react';
import { Check, Copy, Image as ImageIcon } from 'lucide-react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { useStrings } from '../i18n';
import { copyText } from '../../../lib/clipboard';
import { completePartialMarkdown } from '../../../lib/markdown-text';

/** The text of rendered children (a code block's source). */
function textOf(node: ReactNode): string {
  if (node == null || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (typeof node === 'object' && 'props' in node) return textOf((node.props as { children?: ReactNode }).children);
  return '';
}

/** A code block with a copy button (the code itself stays left to right, also in Arabic). */
function CodeBlock({ children, node: _node, ...props }: ComponentPropsWithoutRef<'pre'> & { node?: unknown }) {
  const t = useStrings();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    const ok = await copyText(textOf(children).replace(/\n$/, ''));
    setState(ok ? 'copied' : 'failed');
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <div className="code-block" dir="ltr">
      <button type="button" className="code-copy" onClick={() => void copy()} aria-label={t.actions.copyCode}>
        {state === 'copied' ? <Check aria-hidden="true" size={16} /> : <Copy aria-hidden="true" size={16} />}
        <span aria-live="polite">{state === 'copied' ? t.actions.copied : state === 'failed' ? t.actions.copyFailed : t.actions.copy}</span>
      </button>
      <pre {...props}>{children}</pre>
    </div>
  );
}

/**
 * Text blocks take their direction from their own first letters (dir="auto"): a passage quoted in
 * English inside an Arabic reply reads left to right, its full stop at the end ("minutes.", not
 * ".minutes"), and an Arabic line in an English page right to left.
 */
const bidi = <T extends 'p' | 'li' | 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'h6' | 'blockquote' | 'td' | 'th'>(Tag: T) =>
  function AutoDirection({ node: _node, ...props }: ComponentPropsWithoutRef<T> & { node?: unknown }) {
    const Element = Tag as 'p';
    return <Element dir="auto" {...(props as ComponentPropsWithoutRef<'p'>)} />;
  };

/** The words a Markdown image shows instead of the picture: its alt text, else its address. */
function RemoteImageLink({ src, alt }: ComponentPropsWithoutRef<'img'> & { node?: unknown }) {
  const href = typeof src === 'string' ? src : '';
  const label = alt?.trim() || href;
  if (!href) return <>{label}</>;
  return (
    <a className="image-link" href={href} target="_blank" rel="noopener noreferrer" title={href}>
      <ImageIcon aria-hidden="true" size={14} />
      {label}
    </a>
  );
}

const components: Components = {
  p: bidi('p'),
  li: bidi('li'),
  h1: bidi('h1'),
  h2: bidi('h2'),
  h3: bidi('h3'),
  h4: bidi('h4'),
  h5: bidi('h5'),
  h6: bidi('h6'),
  blockquote: bidi('blockquote'),
  td: bidi('td'),
  th: bidi('th'),
  // Links in replies open in a new tab and never hand the page a window.opener.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
  // An image in a reply is never loaded: its URL could carry the conversation to any site (a
  // passage can be written to make the model emit one). It shows as a link the reader may open.
  img: RemoteImageLink,
  pre: CodeBlock,
  // A wide table scrolls inside the reply rather than widening the page.
  table: ({ node: _node, ...props }) => (
    <div className="table-scroll" tabIndex={0}>
      <table {...props} />
    </div>
  ),
};

const plugins = [remarkGfm];

/**
 * A reply rendered as GitHub-flavoured markdown (tables, strikethrough, task lists, autolinks),
 * safely: raw HTML in the text is dropped (skipHtml), and react-markdown's default URL filter
 * removes javascript: and other unsafe links. While `streaming`, the text's unfinished end
 * (an open `**`, a half-written link) is closed first, so no raw markers flash by.
 */
export const Markdown = memo(function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  return (
    <ReactMarkdown skipHtml remarkPlugins={plugins} components={components}>
      {streaming ? completePartialMarkdown(text) : text}
    </ReactMarkdown>
  );
});
