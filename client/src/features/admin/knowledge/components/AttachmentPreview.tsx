import { Modal } from '../../../../components/Modal';
import { formatFileSize } from '../../../../lib/format';
import { KNOWLEDGE } from '../strings';
import type { DraftAttachment } from './AttachmentList';

/** A supporting document shown in a dialog: images displayed, text shown as is. */
export function AttachmentPreview(props: { attachment: DraftAttachment; content: string | undefined; failed: boolean; onClose(): void }) {
  const { attachment, content, failed, onClose } = props;
  const S = KNOWLEDGE.attachments;
  return (
    <Modal open title={attachment.name} description={formatFileSize(attachment.size)} onClose={onClose} closeLabel={S.closePreview} className="kb-preview">
      {content !== undefined ? (
        attachment.type.startsWith('image/') ? (
          <img className="kb-preview-image" src={content} alt={attachment.name} />
        ) : (
          <pre className="kb-preview-text" tabIndex={0}>
            {content}
          </pre>
        )
      ) : failed ? (
        <p role="alert">{S.previewFailed}</p>
      ) : (
        <p role="status">{S.previewLoading}</p>
      )}
    </Modal>
  );
}
