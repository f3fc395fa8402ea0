import { useEffect, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import { VERTICALS, type VerticalId } from '@shared/catalog/verticals';
import { useStrings } from '../i18n';
import { VerticalIcon } from './VerticalIcon';

/**
 * The vertical tab bar (ARIA tabs, manual activation): arrow keys, Home and End move focus,
 * Enter or Space selects. A disabled vertical is shown with its badge, is aria-disabled and
 * does nothing when clicked.
 */
export function VerticalTabs(props: { selected: VerticalId; panelId: string; onSelect(id: VerticalId): void; isEnabled?: (id: VerticalId) => boolean; only?: readonly VerticalId[] }) {
  const { selected, panelId, onSelect } = props;
  // A widget shows only the verticals its settings offer.
  const list = props.only ? VERTICALS.filter((v) => props.only?.includes(v.id)) : VERTICALS;
  const t = useStrings();
  const isEnabled = props.isEnabled ?? ((id: VerticalId) => list.find((v) => v.id === id)?.enabled ?? false);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const selectedIndex = list.findIndex((v) => v.id === selected);
  const [focusIndex, setFocusIndex] = useState(selectedIndex);
  useEffect(() => setFocusIndex(selectedIndex), [selectedIndex]);

  const moveFocus = (index: number) => {
    const next = (index + list.length) % list.length;
    setFocusIndex(next);
    tabs.current[next]?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // Right to left, the arrow keys follow the mirrored layout.
    const step = getComputedStyle(event.currentTarget).direction === 'rtl' ? -1 : 1;
    const moves: Record<string, number> = {
      ArrowRight: focusIndex + step,
      ArrowDown: focusIndex + 1,
      ArrowLeft: focusIndex - step,
      ArrowUp: focusIndex - 1,
      Home: 0,
      End: list.length - 1,
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    moveFocus(moves[event.key]);
  };

  return (
    <div className="vertical-tabs" role="tablist" aria-label={t.chat.servicesLabel} onKeyDown={onKeyDown}>
      {list.map((vertical, index) => {
        const isSelected = vertical.id === selected;
        const enabled = isEnabled(vertical.id);
        const className = ['vertical-tab', isSelected && 'is-selected', !enabled && 'is-disabled'].filter(Boolean).join(' ');
        return (
          <button
            key={vertical.id}
            ref={(el) => {
              tabs.current[index] = el;
            }}
            id={`tab-${vertical.id}`}
            type="button"
            role="tab"
            className={className}
            aria-selected={isSelected}
            aria-controls={isSelected ? panelId : undefined}
            aria-disabled={enabled ? undefined : true}
            tabIndex={index === focusIndex ? 0 : -1}
            style={{ '--accent': vertical.color } as CSSProperties}
            onFocus={() => setFocusIndex(index)}
            onClick={() => {
              if (enabled) onSelect(vertical.id);
            }}
          >
            <VerticalIcon name={vertical.icon} size={18} />
            <span className="vertical-tab-name">{t.verticals[vertical.id].name}</span>
            {vertical.badge ? (
              <span className="vertical-tab-badge">{t.verticals[vertical.id].badge}</span>
            ) : (
              !enabled && <span className="vertical-tab-badge">{t.chat.unavailableBadge}</span>
            )}
          </button>
        );
      })}
    </div>
  );
}
