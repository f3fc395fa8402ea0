import { useId, useState, type DragEvent, type ReactNode } from 'react';

export interface FileDropZoneProps {
  /** Accessible name of the file input. */
  label: string;
  accept: string;
  multiple?: boolean;
  disabled?: boolean;
  onFiles(files: File[]): void;
  /** What the zone shows (icon, prompt, hint). */
  children: ReactNode;
  className?: string;
}

/**
 * A drop area that is also a file picker: files dropped on it or chosen after a click (or Enter /
 * Space on its focused input) are handed to `onFiles`. The input is visually hidden but keeps
 * focus and its label, so the zone works from the keyboard and for screen readers.
 */
export function FileDropZone({ label, accept, multiple = false, disabled = false, onFiles, children, className }: FileDropZoneProps) {
  const inputId = useId();
  const [over, setOver] = useState(false);

  const onDragOver = (event: DragEvent) => {
    event.preventDefault();
    event.dataTransfer.dropEffect = disabled ? 'none' : 'copy';
    if (!disabled) setOver(true);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    if (disabled) return;
    const files = Array.from(event.dataTransfer.files);
    if (files.length) onFiles(multiple ? files : files.slice(0, 1));
  };

  return (
    <div
      className={['kb-drop', over && 'is-over', disabled && 'is-disabled', className].filter(Boolean).join(' ')}
      onDragOver={onDragOver}
      onDragEnter={onDragOver}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <input
        id={inputId}
        type="file"
        className="kb-visually-hidden"
        accept={accept}
        multiple={multiple}
        disabled={disabled}
        aria-label={label}
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          event.target.value = '';
          if (files.length) onFiles(files);
        }}
      />
      <label htmlFor={inputId} className="kb-drop-label">
        {children}
      </label>
    </div>
  );
}
