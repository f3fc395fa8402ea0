import { useState } from 'react';
import type { Jurisdiction } from '@shared/catalog/jurisdictions';

let flagSupport: boolean | undefined;

/**
 * Whether this browser draws flag emoji as flags. Where it does not (Windows, or Linux without an
 * emoji font) the two regional-indicator letters come out as two glyphs, about twice as wide.
 */
export function flagEmojiSupported(): boolean {
  if (flagSupport !== undefined) return flagSupport;
  flagSupport = true;
  if (typeof document === 'undefined' || /jsdom/i.test(navigator.userAgent)) return flagSupport;
  try {
    const context = document.createElement('canvas').getContext('2d');
    if (context) {
      context.font = '32px "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji", sans-serif';
      const pair = context.measureText('\u{1F1FA}\u{1F1F8}').width;
      const single = context.measureText('\u{1F1FA}').width;
      flagSupport = pair < single * 1.5;
    }
  } catch {
    // Keep the emoji.
  }
  return flagSupport;
}

/** The jurisdiction's flag emoji, or its code on a small plate where flag emoji do not render. */
export function Flag({ jurisdiction, className }: { jurisdiction: Jurisdiction; className?: string }) {
  const [emoji] = useState(flagEmojiSupported);
  const classes = ['flag', emoji ? 'flag-emoji' : 'flag-code', className].filter(Boolean).join(' ');
  return (
    <span className={classes} aria-hidden="true">
      {emoji ? jurisdiction.flag : jurisdiction.code}
    </span>
  );
}
