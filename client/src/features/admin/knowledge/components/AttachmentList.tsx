import { Eye, FileText, Image as ImageIcon, X } from 'lucide-react';
import { formatFileSize } from '../../../../lib/format';
import { KNOWLEDGE } from '../strings';

/** An attachment in the editor: stored (id from the server) or just read from a file (`isNew`). */
export interface DraftAttachment {
  id: string;
  name: string;
  type: string;
  size: number;
  /** Known for new ones; for stored ones once the item has been fetched. */
  content?: string;
  isNew: boolean;
}

/** 'Supporting Documents': name, size, preview and remove per attachment. */
/** `onRemove` absent: the list is read only (a member who may not edit knowledge). */
export function AttachmentList(props: { attachments: DraftAttachment[]; onPreview(attachment: DraftAttachment): void; onRemove?(id: string): void }) {
  const { attachments, onPreview, onRemove } = props;
  const S = KNOWLEDGE.attachments;
  if (attachments.length === 0) return <p className="kb-attachments-empty">{S.none}</p>;
  return (
    <ul className="kb-attachments" aria-label={S.title}>
      {attachments.map((attachment) => {
        const Icon = attachment.type.startsWith('image/') ? ImageIcon : FileText;
        return (
          <li key={attachment.id} className="kb-attachment" aria-label={attachment.name}>
            <Icon size={18} aria-hidden="true" className="kb-attachment-icon" />
            <span className="kb-attachment-name" title={attachment.name}>
              {attachment.name}
            </span>
            <span className="kb-attachment-size">{formatFileSize(attachment.size)}</span>
            <button type="button" className="kb-icon-button" onClick={() => onPreview(attachment)} aria-label={S.preview(attachment.name)} title={S.preview(attachment.name)}>
              <Eye size={16} aria-hidden="true" />
            </button>
            {onRemove && (
              <button type="button" className="kb-icon-button is-danger" onClick={() => onRemove(attachment.id)} aria-label={S.remove(attachment.name)} title={S.remove(attachment.name)}>
                <X size={16} aria-hidden="true" />
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
}
