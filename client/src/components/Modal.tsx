import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { X } from 'lucide-react';
import './modal.css';

const FOCUSABLE = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
].join(',');

function focusablesIn(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => !el.closest('[hidden]'));
}

export interface ModalProps {
  open: boolean;
  title: ReactNode;
  description?: ReactNode;
  onClose(): void;
  children: ReactNode;
  /** Accessible name of the close button. */
  closeLabel?: string;
  className?: string;
  /** 'side': a panel along the inline end of the window (a drawer) rather than a centred box. */
  placement?: 'center' | 'side';
}

/**
 * A modal dialog: focus moves into it, Tab and Shift+Tab cycle inside it, Escape and the close
 * button close it, the page behind is inert, and focus returns where it was when it closes.
 */
export function Modal({ open, title, description, onClose, children, closeLabel = 'Close', className, placement = 'center' }: ModalProps) {
  const dialogRef = useRef<HTMLDivElement>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    if (!open) return;
    const dialog = dialogRef.current;
    if (!dialog) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const backdrop = dialog.parentElement;
    const madeInert = Array.from(document.body.children).filter(
      (el): el is HTMLElement => el instanceof HTMLElement && el !== backdrop && !el.inert,
    );
    for (const el of madeInert) el.inert = true;
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';

    const first = () => (bodyRef.current && focusablesIn(bodyRef.current)[0]) ?? focusablesIn(dialog)[0] ?? dialog;
    first().focus();

    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        onCloseRef.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = focusablesIn(dialog);
      if (items.length === 0) {
        event.preventDefault();
        dialog.focus();
        return;
      }
      const firstItem = items[0];
      const lastItem = items[items.length - 1];
      const current = document.activeElement;
      if (event.shiftKey && (current === firstItem || !dialog.contains(current))) {
        event.preventDefault();
        lastItem.focus();
      } else if (!event.shiftKey && (current === lastItem || !dialog.contains(current))) {
        event.preventDefault();
        firstItem.focus();
      }
    };
    const onFocusIn = (event: FocusEvent) => {
      if (event.target instanceof Node && !dialog.contains(event.target)) first().focus();
    };
    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('focusin', onFocusIn);
      for (const el of madeInert) el.inert = false;
      document.body.style.overflow = overflow;
      previous?.focus();
    };
  }, [open]);

  if (!open) return null;
  return createPortal(
    <div
      className={placement === 'side' ? 'modal-backdrop is-side' : 'modal-backdrop'}
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div
        ref={dialogRef}
        className={className ? `modal ${className}` : 'modal'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={description ? descriptionId : undefined}
        tabIndex={-1}
      >
        <div className="modal-header">
          <div>
            <h2 id={titleId} className="modal-title">
              {title}
            </h2>
            {description && (
              <p id={descriptionId} className="modal-description">
                {description}
              </p>
            )}
          </div>
          <button type="button" className="modal-close" aria-label={closeLabel} onClick={onClose}>
            <X aria-hidden="true" size={20} />
          </button>
        </div>
        <div ref={bodyRef} className="modal-body">
          {children}
        </div>
      </div>
    </div>,
    document.body,
  );
}
