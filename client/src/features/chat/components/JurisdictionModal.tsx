import { useEffect, useId, useRef, useState } from 'react';
import { ChevronLeft } from 'lucide-react';
import { getJurisdiction, JURISDICTIONS, requiresSubRegion, type JurisdictionCode } from '@shared/catalog/jurisdictions';
import { Modal } from '../../../components/Modal';
import type { JurisdictionChoice } from '../api/chat-payload';
import { useStrings } from '../i18n';
import { Flag } from './Flag';

/**
 * 'Select Jurisdiction': step 1 is the country grid; US, UK and AE go on to step 2, a
 * sub-region select with Back and a Continue button that stays disabled until a value is
 * picked. Other countries are chosen at once.
 */
export function JurisdictionModal(props: {
  open: boolean;
  current: JurisdictionChoice | null;
  onClose(): void;
  onSelect(choice: JurisdictionChoice): void;
}) {
  const { open, current, onClose, onSelect } = props;
  const t = useStrings().legal;
  const [country, setCountry] = useState<JurisdictionCode | null>(null);
  const [subRegion, setSubRegion] = useState('');
  const [returnTo, setReturnTo] = useState<JurisdictionCode | null>(null);
  const grid = useRef<HTMLUListElement>(null);
  const selectId = useId();

  useEffect(() => {
    if (!open) return;
    setCountry(null);
    setSubRegion('');
    setReturnTo(null);
  }, [open]);

  // Back from step 2 puts focus on the country that was chosen.
  useEffect(() => {
    if (country === null && returnTo) grid.current?.querySelector<HTMLButtonElement>(`[data-code="${returnTo}"]`)?.focus();
  }, [country, returnTo]);

  const jurisdiction = country ? getJurisdiction(country) : undefined;
  const label = jurisdiction?.subRegionLabel ?? 'Region';

  return (
    <Modal open={open} onClose={onClose} title={t.select} description={t.subtitle} closeLabel={t.close} className="jurisdiction-modal">
      {!jurisdiction ? (
        <ul className="jurisdiction-grid" ref={grid}>
          {JURISDICTIONS.map((j) => (
            <li key={j.code}>
              <button
                type="button"
                className="jurisdiction-option"
                data-code={j.code}
                aria-pressed={current?.code === j.code}
                onClick={() => {
                  if (requiresSubRegion(j.code)) {
                    setCountry(j.code);
                    setSubRegion(current?.code === j.code ? (current.subRegion ?? '') : '');
                  } else {
                    onSelect({ code: j.code });
                  }
                }}
              >
                <Flag jurisdiction={j} className="jurisdiction-option-flag" />
                <span className="jurisdiction-option-name">{t.jurisdictions[j.code].name}</span>
                <span className="jurisdiction-option-system">{t.legalSystems[j.legalSystem]}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <form
          className="subregion-step"
          onSubmit={(event) => {
            event.preventDefault();
            if (subRegion) onSelect({ code: jurisdiction.code, subRegion });
          }}
        >
          <p className="subregion-country">
            <Flag jurisdiction={jurisdiction} /> {t.jurisdictions[jurisdiction.code].name}
          </p>
          <label htmlFor={selectId} className="subregion-label">
            {t.subRegionHeading[label]}
          </label>
          <select id={selectId} value={subRegion} onChange={(event) => setSubRegion(event.target.value)} autoFocus>
            <option value="">{t.choose[label]}</option>
            {jurisdiction.subRegions.map((region) => (
              <option key={region} value={region}>
                {region}
              </option>
            ))}
          </select>
          <div className="subregion-actions">
            <button
              type="button"
              className="button-secondary"
              onClick={() => {
                setReturnTo(jurisdiction.code);
                setCountry(null);
              }}
            >
              <ChevronLeft aria-hidden="true" size={16} className="flip-rtl" />
              {t.back}
            </button>
            <button type="submit" className="button-primary" disabled={!subRegion}>
              {t.continue}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
