import { Check, Copy, Download } from 'lucide-react';
import { useId, useState } from 'react';
import { copyText } from '../../../lib/clipboard';
import { TOTP_SETUP } from '../strings';

/**
 * The recovery codes, shown once: copy, download as a text file, and a confirmation that they were
 * saved before the admin moves on.
 */
export function RecoveryCodesPanel({ codes, doneLabel, onDone }: { codes: string[]; doneLabel: string; onDone(): void }) {
  const ids = useId();
  const [copied, setCopied] = useState(false);
  const [saved, setSaved] = useState(false);
  const text = codes.join('\n');

  const download = () => {
    const url = URL.createObjectURL(new Blob([`${TOTP_SETUP.recoveryListLabel}\n\n${text}\n`], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = TOTP_SETUP.downloadName;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  return (
    <section className="totp-recovery" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`} className="totp-title">
        {TOTP_SETUP.recoveryTitle}
      </h2>
      <p className="totp-text">{TOTP_SETUP.recoveryIntro}</p>
      <ol className="totp-codes" aria-label={TOTP_SETUP.recoveryListLabel}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="totp-row">
        <button type="button" className="totp-button" onClick={() => void copyText(text).then(setCopied)}>
          {copied ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
          {copied ? TOTP_SETUP.copied : TOTP_SETUP.copyAll}
        </button>
        <button type="button" className="totp-button" onClick={download}>
          <Download size={16} aria-hidden="true" />
          {TOTP_SETUP.download}
        </button>
      </div>
      <label className="totp-check">
        <input type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} />
        {TOTP_SETUP.saved}
      </label>
      <button type="button" className="login-primary" disabled={!saved} onClick={onDone}>
        {doneLabel}
      </button>
    </section>
  );
}
