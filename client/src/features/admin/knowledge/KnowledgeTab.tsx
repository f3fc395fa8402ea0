import { EmbeddingProgress } from '../embeddings/EmbeddingProgress';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Modal } from '../../../components/Modal';
import { NoticeStack, useNotices } from '../../../components/Notices';
import { ApiError } from '../../../lib/api';
import { useConsoleNavigation, type KnowledgeDraft } from '../console-navigation';
import { knowledgeApi, type KnowledgeItem, type KnowledgeItemInput } from './api/knowledge-api';
import { KnowledgeEditor } from './components/KnowledgeEditor';
import { KnowledgeList } from './components/KnowledgeList';
import { QuickUpload } from './components/QuickUpload';
import { SiteImportPanel } from './components/SiteImportPanel';
import { QuickUploadReview } from './components/QuickUploadReview';
import { useDebouncedValue } from './hooks/useDebouncedValue';
import { useDeleteKnowledgeItem, useInvalidateKnowledge, useKnowledgeItem, useKnowledgeList, useSaveKnowledgeItem } from './hooks/useKnowledge';
import { connectKnowledgeFeed, useKnowledgeLive, type KnowledgeFeed } from './hooks/useKnowledgeLive';
import { useQuickUpload, withReason } from './hooks/useQuickUpload';
import { loadPdfJs as loadBundledPdfJs, type PdfJsModule } from './pdf/pdf-text';
import { KNOWLEDGE } from './strings';
import { useAuth } from '../../auth';
import { can } from '@shared/contracts/roles';
import './knowledge.css';

/** How long a delete can be undone: the server is asked to delete only once it has passed. */
export const UNDO_DELETE_MS = 6000;

/** How long the search text must rest before the list reloads. */
export const SEARCH_DEBOUNCE_MS = 300;

/** The editor: closed, a new item, or an existing one. `key` restarts it on every open. */
type EditorState = { mode: 'closed' } | { mode: 'create'; key: number; draft?: KnowledgeDraft } | { mode: 'edit'; key: number; item: KnowledgeItem };

export interface KnowledgeTabProps {
  /** The `/admin` socket (tests hand in their own). */
  connectFeed?: () => KnowledgeFeed;
  /** PDF.js (tests hand in the build that runs outside a browser). */
  loadPdfJs?: () => Promise<PdfJsModule>;
  /** How long a delete can be undone (tests shorten it). */
  undoDeleteMs?: number;
}

/**
 * The Knowledge Base tab: the 'Knowledge Items' list with
 * search, vertical filter and quick upload on the left; the placeholder or the editor on the
 * right. Save and Delete reload the list and close the editor; other consoles' changes arrive
 * as `knowledge:changed` and reload it too.
 */
export function KnowledgeTab({ connectFeed = connectKnowledgeFeed, loadPdfJs = loadBundledPdfJs, undoDeleteMs = UNDO_DELETE_MS }: KnowledgeTabProps) {
  const { user } = useAuth();
  // Agents and viewers read the knowledge: no adding, importing, editing or deleting for them.
  const writable = can(user?.role, 'knowledgeWrite');
  const [search, setSearch] = useState('');
  const [vertical, setVertical] = useState('all');
  // The jurisdiction filter applies to the Legal vertical only.
  const [scope, setScope] = useState({ jurisdiction: 'all', subRegion: '' });
  const debouncedSearch = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const list = useKnowledgeList({ vertical, search: debouncedSearch, ...(vertical === 'legal' ? scope : {}) });
  const [editor, setEditor] = useState<EditorState>({ mode: 'closed' });
  const { notices, notify, dismiss } = useNotices();
  // Deletes waiting for their undo window to pass: hidden from the list, not yet deleted.
  const [pendingDeletes, setPendingDeletes] = useState<ReadonlySet<string>>(new Set());
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const [confirming, setConfirming] = useState<KnowledgeItem | null>(null);
  const openId = editor.mode === 'edit' ? editor.item.id : null;
  const detail = useKnowledgeItem(openId);
  const invalidate = useInvalidateKnowledge();
  const save = useSaveKnowledgeItem();
  const remove = useDeleteKnowledgeItem();
  useKnowledgeLive(connectFeed);
  const quickUpload = useQuickUpload({ vertical, loadPdfJs, onCreated: invalidate, notify });

  const [saveProblem, setSaveProblem] = useState<string | null>(null);
  const saveNotice = useRef<number | null>(null);
  const opened = useRef(0);
  const open = (next: { mode: 'create'; draft?: KnowledgeDraft } | { mode: 'edit'; item: KnowledgeItem }) => {
    setSaveProblem(null);
    setEditor({ ...next, key: ++opened.current });
  };

  // Knowledge gaps' "Create knowledge item": the editor opens with the question.
  const navigation = useConsoleNavigation();
  const draft = navigation?.knowledgeDraft;
  useEffect(() => {
    if (!draft) return;
    setSaveProblem(null);
    setEditor({ mode: 'create', draft: draft.draft, key: ++opened.current });
    navigation?.draftOpened();
  }, [draft, navigation]);
  const close = () => setEditor({ mode: 'closed' });

  const onSave = (input: KnowledgeItemInput) => {
    setSaveProblem(null);
    save.mutate(
      { id: openId, input },
      {
        onSuccess: () => {
          void invalidate();
          close();
          // The refusal it answers is no longer news.
          if (saveNotice.current !== null) dismiss(saveNotice.current);
          saveNotice.current = null;
        },
        onError: (error) => {
          console.error('Failed to save knowledge item', error);
          if (saveNotice.current !== null) dismiss(saveNotice.current);
          saveNotice.current = null;
          // A refusal (checked here by the item's contract, or by the server) says what to fix, once,
          // in the editor beside the fields; trying again would not help. Anything else (the
          // server or the network failed) is a notice that says to try again.
          if (error instanceof ApiError && error.status >= 400 && error.status < 500) setSaveProblem(error.message);
          else saveNotice.current = notify(withReason(KNOWLEDGE.alerts.saveFailed, error), { tone: 'error' });
        },
      },
    );
  };

  const unhide = (id: string) =>
    setPendingDeletes((current) => {
      const next = new Set(current);
      next.delete(id);
      return next;
    });

  /** Asks the server to delete; a failure brings the item back with the delete alert. */
  const commitDelete = (item: KnowledgeItem) => {
    timers.current.delete(item.id);
    remove.mutate(item.id, {
      onSuccess: () => void invalidate().then(() => unhide(item.id)),
      onError: (error) => {
        console.error('Failed to delete knowledge item', error);
        unhide(item.id);
        notify(withReason(KNOWLEDGE.alerts.deleteFailed, error), { tone: 'error' });
      },
    });
  };
  const commitRef = useRef(commitDelete);
  commitRef.current = commitDelete;

  /**
   * Confirmed: the item leaves the list and the editor closes at once, but the server deletes it
   * only when the undo window has passed, so Undo loses nothing (same id, attachments, history).
   */
  const deleteConfirmed = (item: KnowledgeItem) => {
    setConfirming(null);
    setPendingDeletes((current) => new Set(current).add(item.id));
    setEditor((current) => (current.mode === 'edit' && current.item.id === item.id ? { mode: 'closed' } : current));
    const timer = setTimeout(() => commitRef.current(item), undoDeleteMs);
    timers.current.set(item.id, timer);
    notify(KNOWLEDGE.deleted(item.title), {
      tone: 'info',
      timeoutMs: undoDeleteMs,
      action: {
        label: KNOWLEDGE.undo,
        run: () => {
          clearTimeout(timer);
          timers.current.delete(item.id);
          unhide(item.id);
          notify(KNOWLEDGE.restored(item.title), { tone: 'success', timeoutMs: 4000 });
        },
      },
    });
  };

  // Leaving the tab does not cancel a confirmed delete: it is sent at once.
  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const [id, timer] of pending) {
        clearTimeout(timer);
        void knowledgeApi.remove(id).catch((error) => console.error('Failed to delete knowledge item', error));
      }
      pending.clear();
    };
  }, []);

  const onDelete = () => {
    if (editor.mode === 'edit') setConfirming(editor.item);
  };

  // On a phone the editor sits under the list: opening it brings it into view (nothing moves
  // when it is already visible, as on a wide screen where it is beside the list).
  const mainRef = useRef<HTMLDivElement>(null);
  const editorKey = editor.mode === 'closed' ? 0 : editor.key;
  useEffect(() => {
    const main = mainRef.current;
    if (!editorKey || !main) return;
    const top = main.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight * 0.6) main.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
  }, [editorKey]);

  const storedContent = useMemo(() => {
    if (!detail.data) return undefined;
    return new Map(detail.data.attachments.flatMap((a) => (a.content === undefined ? [] : [[a.id, a.content] as const])));
  }, [detail.data]);

  return (
    <div className="kb-tab">
      <KnowledgeList
        items={pendingDeletes.size ? list.items.filter((item) => !pendingDeletes.has(item.id)) : list.items}
        isLoading={list.isLoading}
        selectedId={openId}
        search={search}
        vertical={vertical}
        jurisdiction={scope.jurisdiction}
        subRegion={scope.subRegion}
        onSearchChange={setSearch}
        onVerticalChange={setVertical}
        onJurisdictionChange={(jurisdiction, subRegion) => setScope({ jurisdiction, subRegion })}
        onSelect={(item) => open({ mode: 'edit', item })}
        onNew={writable ? () => open({ mode: 'create' }) : undefined}
      >
        {writable && <QuickUpload progress={quickUpload.progress} onFile={(file) => void quickUpload.upload(file)} />}
        {writable && <SiteImportPanel defaultVertical={vertical} onChanged={invalidate} />}
        <EmbeddingProgress />
      </KnowledgeList>

      <div className="kb-main" ref={mainRef}>
        {editor.mode === 'closed' ? (
          <p className="kb-placeholder">{KNOWLEDGE.placeholder}</p>
        ) : (
          <KnowledgeEditor
            key={editor.key}
            item={editor.mode === 'edit' ? editor.item : null}
            draft={editor.mode === 'create' ? editor.draft : undefined}
            storedContent={storedContent}
            storedContentFailed={detail.isError}
            saving={save.isPending}
            deleting={remove.isPending}
            saveProblem={saveProblem}
            readOnly={!writable}
            onSave={onSave}
            onDelete={onDelete}
            onClose={close}
            notify={(text) => notify(text, { tone: 'error' })}
          />
        )}
      </div>
      <Modal
        open={confirming !== null}
        title={KNOWLEDGE.confirmDelete.title}
        description={confirming ? KNOWLEDGE.confirmDelete.description(confirming.title) : undefined}
        onClose={() => setConfirming(null)}
        className="kb-confirm"
      >
        <div className="kb-confirm-actions">
          <button type="button" className="kb-button" onClick={() => setConfirming(null)}>
            {KNOWLEDGE.confirmDelete.cancel}
          </button>
          <button type="button" className="kb-button is-danger" onClick={() => confirming && deleteConfirmed(confirming)}>
            {KNOWLEDGE.confirmDelete.confirm}
          </button>
        </div>
      </Modal>
      {quickUpload.review && (
        <QuickUploadReview key={quickUpload.review.fileName} review={quickUpload.review} onConfirm={(drafts) => void quickUpload.confirm(drafts)} onCancel={quickUpload.cancel} />
      )}
      <NoticeStack notices={notices} onDismiss={dismiss} label={KNOWLEDGE.notices} closeLabel={KNOWLEDGE.dismiss} />
    </div>
  );
}

export default KnowledgeTab;
