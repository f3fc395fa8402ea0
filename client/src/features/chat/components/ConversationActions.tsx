import { useState } from 'react';
import { SquarePen, Trash2 } from 'lucide-react';
import { Modal } from '../../../components/Modal';
import { CHAT } from '../strings';

/**
 * "New chat" (this vertical starts over, here and on the server) and "Delete my conversations"
 * (every conversation of the visitor, after a confirmation).
 */
export function ConversationActions(props: { canStartOver: boolean; onNewChat(): void; onDeleteAll(): Promise<void> }) {
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
      <button type="button" className="panel-button" onClick={props.onNewChat} disabled={!props.canStartOver} title={CHAT.newChatHint}>
        <SquarePen aria-hidden="true" size={16} />
        <span>{CHAT.newChat}</span>
      </button>
      <button
        type="button"
        className="panel-button is-icon"
        aria-label={CHAT.deleteConversations}
        title={CHAT.deleteConversations}
        onClick={() => {
          setState('idle');
          setConfirming(true);
        }}
      >
        <Trash2 aria-hidden="true" size={16} />
      </button>
      <Modal open={confirming} onClose={() => setConfirming(false)} title={CHAT.deleteTitle} description={CHAT.deleteText} className="confirm-modal">
        {state === 'failed' && (
          <p className="confirm-error" role="alert">
            {CHAT.deleteFailed}
          </p>
        )}
        <div className="confirm-actions">
          <button type="button" className="panel-button" onClick={() => setConfirming(false)}>
            {CHAT.deleteCancel}
          </button>
          <button type="button" className="panel-button is-danger" onClick={() => void remove()} disabled={state === 'deleting'}>
            {state === 'deleting' ? CHAT.deleting : CHAT.deleteConfirm}
          </button>
        </div>
      </Modal>
    </>
  );
}
