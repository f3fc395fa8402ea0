import { useEffect, useState } from 'react';
import type { Markdown as MarkdownRenderer } from './Markdown';

type Renderer = typeof MarkdownRenderer;

let loaded: Renderer | undefined;
let loading: Promise<Renderer> | undefined;

/**
 * Loads the Markdown renderer (react-markdown with GFM, a third of the chat's code) as a chunk of
 * its own, so the page (and the widget's iframe, with its 150 KB budget) is usable before it
 * arrives. A failed load (offline) is tried again by the next reply that needs it.
 */
export function loadMarkdown(): Promise<Renderer> {
  loading ??= import('./Markdown').then(
    (module) => (loaded = module.Markdown),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** A reply as plain paragraphs, split at blank lines: what shows until the renderer is loaded. */
function PlainText({ text }: { text: string }) {
  const paragraphs = text.split(/\n{2,}/).filter((p) => p.trim() !== '');
  return (
    <>
      {paragraphs.map((paragraph, i) => (
        <p key={i} dir="auto" className="markdown-plain">
          {paragraph}
        </p>
      ))}
    </>
  );
}

/** The Markdown renderer once loaded; until then the same text, unformatted. */
export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const [Loaded, setLoaded] = useState<Renderer | undefined>(() => loaded);
  useEffect(() => {
    if (Loaded) return;
    let live = true;
    loadMarkdown().then(
      (renderer) => live && setLoaded(() => renderer),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [Loaded]);
  return Loaded ? <Loaded text={text} streaming={streaming} /> : <PlainText text={text} />;
}
