import { memo, useState, type ComponentPropsWithoutRef, type ReactNode } from 'react';
import { Check, Copy } from 'lucide-react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { useStrings } from '../i18n';
import { copyText } from '../../../lib/clipboard';

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
 * removes javascript: and other unsafe links.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <ReactMarkdown skipHtml remarkPlugins={plugins} components={components}>
      {text}
    </ReactMarkdown>
  );
});
