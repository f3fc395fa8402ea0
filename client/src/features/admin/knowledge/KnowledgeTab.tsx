import { useMemo, useRef, useState } from 'react';
import { ApiError } from '../../../lib/api';
import type { KnowledgeItem, KnowledgeItemInput } from './api/knowledge-api';
import { KnowledgeEditor } from './components/KnowledgeEditor';
import { KnowledgeList } from './components/KnowledgeList';
import { QuickUpload } from './components/QuickUpload';
import { useDebouncedValue } from './hooks/useDebouncedValue';
import { useDeleteKnowledgeItem, useInvalidateKnowledge, useKnowledgeItem, useKnowledgeList, useSaveKnowledgeItem } from './hooks/useKnowledge';
import { connectKnowledgeFeed, useKnowledgeLive, type KnowledgeFeed } from './hooks/useKnowledgeLive';
import { useQuickUpload } from './hooks/useQuickUpload';
import { loadPdfJs as loadBundledPdfJs, type PdfJsModule } from './pdf/pdf-text';
import { KNOWLEDGE } from './strings';
import './knowledge.css';

/** How long the search text must rest before the list reloads. */
export const SEARCH_DEBOUNCE_MS = 300;

/** The editor: closed, a new item, or an existing one. `key` restarts it on every open. */
type EditorState = { mode: 'closed' } | { mode: 'create'; key: number } | { mode: 'edit'; key: number; item: KnowledgeItem };

export interface KnowledgeTabProps {
  /** The `/admin` socket (tests hand in their own). */
  connectFeed?: () => KnowledgeFeed;
  /** PDF.js (tests hand in the build that runs outside a browser). */
  loadPdfJs?: () => Promise<PdfJsModule>;
}

/**
 * The Knowledge Base tab (product-spec sections 2, 4, 5 and 8): the 'Knowledge Items' list with
 * search, vertical filter and quick upload on the left; the placeholder or the editor on the
 * right. Save and Delete reload the list and close the editor; other consoles' changes arrive
 * as `knowledge:changed` and reload it too.
 */
export function KnowledgeTab({ connectFeed = connectKnowledgeFeed, loadPdfJs = loadBundledPdfJs }: KnowledgeTabProps) {
  const [search, setSearch] = useState('');
  const [vertical, setVertical] = useState('all');
  // The jurisdiction filter applies to the Legal vertical only.
  const [scope, setScope] = useState({ jurisdiction: 'all', subRegion: '' });
  const debouncedSearch = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const list = useKnowledgeList({ vertical, search: debouncedSearch, ...(vertical === 'legal' ? scope : {}) });
  const [editor, setEditor] = useState<EditorState>({ mode: 'closed' });
  const openId = editor.mode === 'edit' ? editor.item.id : null;
  const detail = useKnowledgeItem(openId);
  const invalidate = useInvalidateKnowledge();
  const save = useSaveKnowledgeItem();
  const remove = useDeleteKnowledgeItem();
  useKnowledgeLive(connectFeed);
  const quickUpload = useQuickUpload({ vertical, loadPdfJs, onCreated: invalidate });

  const [saveProblem, setSaveProblem] = useState<string | null>(null);
  const opened = useRef(0);
  const open = (next: { mode: 'create' } | { mode: 'edit'; item: KnowledgeItem }) => {
    setSaveProblem(null);
    setEditor({ ...next, key: ++opened.current });
  };
  const close = () => setEditor({ mode: 'closed' });

  const onSave = (input: KnowledgeItemInput) => {
    setSaveProblem(null);
    save.mutate(
      { id: openId, input },
      {
        onSuccess: () => {
          void invalidate();
          close();
        },
        onError: (error) => {
          console.error('Failed to save knowledge item', error);
          // A refusal (checked here by the item's contract, or by the server) says what to fix.
          if (error instanceof ApiError && error.status >= 400 && error.status < 500) setSaveProblem(error.message);
          window.alert(KNOWLEDGE.alerts.saveFailed);
        },
      },
    );
  };

  const onDelete = () => {
    if (!openId) return;
    const id = openId;
    remove.mutate(id, {
      onSuccess: () => {
        void invalidate();
        // Close the editor if the deleted item is still the one open.
        setEditor((current) => (current.mode === 'edit' && current.item.id === id ? { mode: 'closed' } : current));
      },
      onError: (error) => {
        console.error('Failed to delete knowledge item', error);
        window.alert(KNOWLEDGE.alerts.deleteFailed);
      },
    });
  };

  const storedContent = useMemo(() => {
    if (!detail.data) return undefined;
    return new Map(detail.data.attachments.flatMap((a) => (a.content === undefined ? [] : [[a.id, a.content] as const])));
  }, [detail.data]);

  return (
    <div className="kb-tab">
      <KnowledgeList
        items={list.items}
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
        onNew={() => open({ mode: 'create' })}
      >
        <QuickUpload progress={quickUpload.progress} onFile={(file) => void quickUpload.upload(file)} />
      </KnowledgeList>

      <div className="kb-main">
        {editor.mode === 'closed' ? (
          <p className="kb-placeholder">{KNOWLEDGE.placeholder}</p>
        ) : (
          <KnowledgeEditor
            key={editor.key}
            item={editor.mode === 'edit' ? editor.item : null}
            storedContent={storedContent}
            storedContentFailed={detail.isError}
            saving={save.isPending}
            deleting={remove.isPending}
            saveProblem={saveProblem}
            onSave={onSave}
            onDelete={onDelete}
            onClose={close}
          />
        )}
      </div>
    </div>
  );
}

export default KnowledgeTab;
