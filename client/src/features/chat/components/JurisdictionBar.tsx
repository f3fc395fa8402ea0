import { useState } from 'react';
import { ChevronDown, Info, MapPin, TriangleAlert } from 'lucide-react';
import { getJurisdiction } from '@shared/catalog/jurisdictions';
import type { JurisdictionChoice } from '../api/chat-payload';
import { useStrings } from '../i18n';
import { Flag } from './Flag';

/** Legal only: the chosen jurisdiction's badge and the Select / Change Jurisdiction button. */
export function JurisdictionBar({ choice, onOpen }: { choice: JurisdictionChoice | null; onOpen(): void }) {
  const t = useStrings().legal;
  const jurisdiction = choice ? getJurisdiction(choice.code) : undefined;
  return (
    <div className="jurisdiction-bar">
      {jurisdiction && (
        <span className="jurisdiction-badge" role="status" aria-label={t.badgeLabel}>
          <Flag jurisdiction={jurisdiction} className="jurisdiction-flag" />
          <span className="jurisdiction-country">{t.jurisdictions[jurisdiction.code].name}</span>
          {choice?.subRegion && <span className="jurisdiction-sub">{choice.subRegion}</span>}
        </span>
      )}
      <button type="button" className="jurisdiction-button" onClick={onOpen} aria-haspopup="dialog">
        <MapPin aria-hidden="true" size={16} />
        {jurisdiction ? t.change : t.select}
      </button>
    </div>
  );
}

/**
 * Legal only: the notice that this is information, not advice (one short line that opens to the
 * full text) and the chosen jurisdiction's warning, compact so the message box stays in view on a
 * laptop and the conversation keeps most of a phone's height.
 */
export function LegalNotice({ choice }: { choice: JurisdictionChoice | null }) {
  const t = useStrings().legal;
  const [open, setOpen] = useState(false);
  const warning = choice ? t.jurisdictions[choice.code]?.warning : undefined;
  return (
    <div className={open ? 'legal-notes is-open' : 'legal-notes'}>
      <p className="legal-notice">
        <Info aria-hidden="true" size={16} />
        <span>
          <strong>{t.noticeTitle}:</strong> {open ? t.notice : t.noticeShort}
        </span>
        <button type="button" className="legal-notice-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? t.less : t.more}
          <ChevronDown aria-hidden="true" size={14} className={open ? 'is-open' : undefined} />
        </button>
      </p>
      {warning && (
        <p className="legal-warning" role="note">
          <TriangleAlert aria-hidden="true" size={16} />
          <span>{warning}</span>
        </p>
      )}
    </div>
  );
}
