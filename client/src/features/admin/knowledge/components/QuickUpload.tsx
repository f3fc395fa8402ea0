import { Upload } from 'lucide-react';
import { useId } from 'react';
import { QUICK_UPLOAD_ACCEPT } from '../files';
import type { UploadProgress } from '../hooks/useQuickUpload';
import { KNOWLEDGE } from '../strings';
import { FileDropZone } from './FileDropZone';

/** The 'Quick Upload Document' box: one TXT, JSON or PDF file becomes a knowledge item. */
export function QuickUpload({ progress, onFile }: { progress: UploadProgress | null; onFile(file: File): void }) {
  const titleId = useId();
  const S = KNOWLEDGE.quickUpload;
  return (
    <section className="kb-quick" aria-labelledby={titleId}>
      <h3 id={titleId} className="kb-quick-title">
        {S.title}
      </h3>
      <FileDropZone label={S.choose} accept={QUICK_UPLOAD_ACCEPT} disabled={progress !== null} onFiles={([file]) => onFile(file)}>
        <Upload size={20} aria-hidden="true" />
        <span className="kb-drop-prompt">{progress ? S.busy : S.prompt}</span>
        <span className="kb-drop-hint">{S.formats}</span>
      </FileDropZone>
      {progress && (
        <div className="kb-progress" role="status">
          <span>{progress.label}</span>
          <progress max={1} value={progress.fraction} aria-label={progress.label} />
        </div>
      )}
    </section>
  );
}
