import { useState } from 'react';
import { SquarePen, Trash2 } from 'lucide-react';
import { Modal } from '../../../components/Modal';
import { useStrings } from '../i18n';

/**
 * "New chat" (this vertical starts over, here and on the server) and "Delete my conversations"
 * (every conversation of the visitor, after a confirmation).
 */
export function ConversationActions(props: { canStartOver: boolean; onNewChat(): void; onDeleteAll(): Promise<void> }) {
  const strings = useStrings();
  const t = strings.chat;
  const [confirming, setConfirming] = useState(false);
  const [state, setState] = useState<'idle' | 'deleting' | 'failed'>('idle');

  const remove = async () => {
    setState('deleting');
    try {
      await props.onDeleteAll();
      setState('idle');
      setConfirming(false);
    } catch (error) {
      console.error('Failed to delete conversations', error);
      setState('failed');
    }
  };

  return (
    <>
      <button type="button" className="panel-button" onClick={props.onNewChat} disabled={!props.canStartOver} title={t.newChatHint}>
        <SquarePen aria-hidden="true" size={16} />
        <span>{t.newChat}</span>
      </button>
      <button
        type="button"
        className="panel-button is-icon"
        aria-label={t.deleteConversations}
        title={t.deleteConversations}
        onClick={() => {
          setState('idle');
          setConfirming(true);
        }}
      >
        <Trash2 aria-hidden="true" size={16} />
      </button>
      <Modal open={confirming} onClose={() => setConfirming(false)} title={t.deleteTitle} description={t.deleteText} closeLabel={strings.source.close} className="confirm-modal">
        {state === 'failed' && (
          <p className="confirm-error" role="alert">
            {t.deleteFailed}
          </p>
        )}
        <div className="confirm-actions">
          <button type="button" className="panel-button" onClick={() => setConfirming(false)}>
            {t.deleteCancel}
          </button>
          <button type="button" className="panel-button is-danger" onClick={() => void remove()} disabled={state === 'deleting'}>
            {state === 'deleting' ? t.deleting : t.deleteConfirm}
          </button>
        </div>
      </Modal>
    </>
  );
}
