import { Info, MapPin, TriangleAlert } from 'lucide-react';
import { getJurisdiction } from '@shared/catalog/jurisdictions';
import type { JurisdictionChoice } from '../api/chat-payload';
import { Flag } from './Flag';
import { LEGAL } from '../strings';

/** Legal only: the chosen jurisdiction's badge and the Select / Change Jurisdiction button. */
export function JurisdictionBar({ choice, onOpen }: { choice: JurisdictionChoice | null; onOpen(): void }) {
  const jurisdiction = choice ? getJurisdiction(choice.code) : undefined;
  return (
    <div className="jurisdiction-bar">
      {jurisdiction && (
        <span className="jurisdiction-badge" role="status" aria-label={LEGAL.badgeLabel}>
          <Flag jurisdiction={jurisdiction} className="jurisdiction-flag" />
          <span className="jurisdiction-country">{jurisdiction.name}</span>
          {choice?.subRegion && <span className="jurisdiction-sub">{choice.subRegion}</span>}
        </span>
      )}
      <button type="button" className="jurisdiction-button" onClick={onOpen} aria-haspopup="dialog">
        <MapPin aria-hidden="true" size={16} />
        {jurisdiction ? LEGAL.change : LEGAL.select}
      </button>
    </div>
  );
}

/** Legal only: the notice that this is information, not advice, and the chosen jurisdiction's warning. */
export function LegalNotice({ choice }: { choice: JurisdictionChoice | null }) {
  const warning = choice ? getJurisdiction(choice.code)?.warning : undefined;
  return (
    <div className="legal-notes">
      <p className="legal-notice">
        <Info aria-hidden="true" size={16} />
        <span>
          <strong>{LEGAL.noticeTitle}:</strong> {LEGAL.notice}
        </span>
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
