import { Loader2, Save, Trash2, UploadCloud, X } from 'lucide-react';
import { getJurisdiction, JURISDICTIONS } from '@shared/catalog/jurisdictions';
import { useId, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../../../lib/api';
import { knowledgeApi, type KnowledgeItem, type KnowledgeItemInput } from '../api/knowledge-api';
import { ATTACHMENT_ACCEPT, checkAttachmentFile, parseTags, readAsDataUrl, readAsText } from '../files';
import { KNOWLEDGE } from '../strings';
import { AttachmentList, type DraftAttachment } from './AttachmentList';
import { AttachmentPreview } from './AttachmentPreview';
import { FileDropZone } from './FileDropZone';
import { verticalLabel } from './KnowledgeList';

/** The verticals an item may belong to, in the order of the catalog. */
const VERTICAL_OPTIONS = Object.keys(KNOWLEDGE.verticals);

/** A new item: empty, in Customer Support. */
const NEW_ITEM = { title: '', content: '', category: '', vertical: 'customer-service', tags: [] as string[], attachments: [], jurisdiction: null, subRegion: null };

let localIds = 0;
/** Ids for attachments not saved yet (only used to tell them apart in the editor). */
const nextLocalId = () => `local-${++localIds}`;

export interface KnowledgeEditorProps {
  /** The item being edited, or null for a new one. */
  item: KnowledgeItem | null;
  /** A new item's fields to start from (Knowledge gaps' "Create knowledge item": the question). */
  draft?: { title: string; vertical: string; content?: string };
  /** Stored attachments' content, once the whole item has been fetched. */
  storedContent: ReadonlyMap<string, string> | undefined;
  /** Fetching the whole item failed: stored attachments cannot be previewed. */
  storedContentFailed: boolean;
  saving: boolean;
  deleting: boolean;
  /** Why the last save was refused (the contract's or the server's words), shown above the fields. */
  saveProblem?: string | null;
  /** A member who may read but not change knowledge: the fields are shown disabled, no Save or Delete. */
  readOnly?: boolean;
  onSave(input: KnowledgeItemInput): void;
  onDelete(): void;
  onClose(): void;
  /** Shows a notice in the page (file problems). */
  notify(text: string): void;
}

const A = KNOWLEDGE.attachments;

/** A document's Markdown as the server converts it; a spreadsheet's parts under their own headings. */
async function convertedText(file: File, vertical: string): Promise<string> {
  const converted = await knowledgeApi.importFile(file, { vertical, preview: true });
  if (converted.items.length === 1) return converted.items[0].content;
  return converted.items.map((i) => `## ${i.title}\n\n${i.content}`).join('\n\n');
}

function problemText(name: string, reason: 'not-yet-supported' | 'unsupported' | 'too-large'): string {
  if (reason === 'too-large') return A.tooLarge(name);
  if (reason === 'not-yet-supported') return A.notYetSupportedFile(name);
  return A.unsupported(name);
}

/**
 * The editor of the right panel: 'New Knowledge Item' or 'Edit Knowledge Item', with Save, Delete
 * (existing items), the fields, and the supporting documents. No client-side required-field
 * checks: the server's verdict shows as the save alert.
 */
export function KnowledgeEditor(props: KnowledgeEditorProps) {
  const { item, draft, storedContent, storedContentFailed, saving, deleting, saveProblem, readOnly = false, onSave, onDelete, onClose, notify } = props;
  const ids = useId();
  const E = KNOWLEDGE.editor;
  const initial = item ?? (draft ? { ...NEW_ITEM, title: draft.title, content: draft.content ?? '', vertical: VERTICAL_OPTIONS.includes(draft.vertical) ? draft.vertical : NEW_ITEM.vertical } : NEW_ITEM);
  const [title, setTitle] = useState(initial.title);
  const [content, setContent] = useState(initial.content);
  const [vertical, setVertical] = useState(initial.vertical as KnowledgeItemInput['vertical']);
  const [category, setCategory] = useState(initial.category);
  const [tagsText, setTagsText] = useState(initial.tags.join(', '));
  // Legal items only: '' is none (general information) / the whole jurisdiction.
  const [jurisdiction, setJurisdiction] = useState(initial.jurisdiction ?? '');
  const [subRegion, setSubRegion] = useState(initial.subRegion ?? '');
  const legal = vertical === 'legal';
  const chosen = legal && jurisdiction ? getJurisdiction(jurisdiction) : undefined;
  const [attachments, setAttachments] = useState<DraftAttachment[]>(() => (item?.attachments ?? []).map((a) => ({ ...a, isNew: false })));
  const [reading, setReading] = useState(0);
  const [previewing, setPreviewing] = useState<DraftAttachment | null>(null);
  const busy = saving || deleting;
  // A refusal is about the form as it was sent: once a field changes it no longer applies
  // ("Title is required" goes away as the title is typed) and the next save says what is left.
  const formState = JSON.stringify([title, content, vertical, category, tagsText, jurisdiction, subRegion, attachments.length]);
  const sent = useRef<string | null>(null);
  const showProblem = saveProblem && sent.current === formState;

  const addFiles = async (files: File[]) => {
    const problems: string[] = [];
    const accepted: Array<{ file: File; type: string; image: boolean; convert: boolean }> = [];
    for (const file of files) {
      const check = checkAttachmentFile(file);
      if (check.ok) accepted.push({ file, type: check.type, image: check.image, convert: check.convert });
      else problems.push(problemText(file.name, check.reason));
    }
    if (problems.length) notify(problems.join('\n'));
    if (accepted.length === 0) return;
    setReading((n) => n + accepted.length);
    const results = await Promise.allSettled(
      accepted.map(async ({ file, type, image, convert }): Promise<DraftAttachment> => {
        const content = image ? await readAsDataUrl(file) : convert ? await convertedText(file, vertical) : await readAsText(file);
        return { id: nextLocalId(), name: file.name, type, size: convert ? new Blob([content]).size : file.size, content, isNew: true };
      }),
    );
    setReading((n) => n - accepted.length);
    const read = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    if (read.length) setAttachments((current) => [...current, ...read]);
    const failed = results.filter((r) => r.status === 'rejected');
    if (failed.length) {
      console.error('Failed to read attachment', ...failed.map((r) => (r as PromiseRejectedResult).reason));
      // A refused conversion says why (a zip bomb, a damaged workbook, a page without text).
      notify([KNOWLEDGE.alerts.uploadFailed, ...failed.map((r) => ((r as PromiseRejectedResult).reason instanceof ApiError ? (r as PromiseRejectedResult).reason.message : '')).filter(Boolean)].join('\n'));
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    sent.current = formState;
    onSave({
      title,
      content,
      category,
      vertical,
      tags: parseTags(tagsText),
      // A PUT sends the whole item: left out, an item has no jurisdiction (general information).
      ...(chosen ? { jurisdiction: chosen.code, ...(subRegion ? { subRegion } : {}) } : {}),
      // Stored attachments go back by id without content: the server keeps their files.
      attachments: attachments.map((a) => (a.isNew ? { name: a.name, type: a.type, size: a.size, content: a.content } : { id: a.id, name: a.name, type: a.type, size: a.size })),
    });
  };

  const previewContent = previewing && (previewing.content ?? storedContent?.get(previewing.id));

  return (
    <form className="kb-editor" onSubmit={submit} aria-labelledby={`${ids}-heading`}>
      <div className="kb-editor-head">
        <h2 id={`${ids}-heading`}>{readOnly ? E.viewTitle : item ? E.editTitle : E.newTitle}</h2>
        <div className="kb-editor-actions">
          {!readOnly && (
            <button type="submit" className="kb-button is-primary" disabled={busy}>
              {saving ? <Loader2 size={16} className="kb-spin" aria-hidden="true" /> : <Save size={16} aria-hidden="true" />}
              {saving ? E.saving : E.save}
            </button>
          )}
          {item && !readOnly && (
            <button type="button" className="kb-button is-danger" onClick={onDelete} disabled={busy}>
              {deleting ? <Loader2 size={16} className="kb-spin" aria-hidden="true" /> : <Trash2 size={16} aria-hidden="true" />}
              {deleting ? E.deleting : E.delete}
            </button>
          )}
          <button type="button" className="kb-icon-button" onClick={onClose} aria-label={E.close} title={E.close}>
            <X size={18} aria-hidden="true" />
          </button>
        </div>
      </div>

      <fieldset className="kb-fields" disabled={readOnly}>
      {showProblem && (
        <p className="kb-save-problem" role="alert">
          {saveProblem}
        </p>
      )}
      <div className="kb-field">
        <label htmlFor={`${ids}-title`}>{E.title}</label>
        <input id={`${ids}-title`} type="text" value={title} onChange={(e) => setTitle(e.target.value)} />
      </div>
      <div className="kb-field">
        <label htmlFor={`${ids}-content`}>{E.content}</label>
        <textarea id={`${ids}-content`} rows={8} value={content} onChange={(e) => setContent(e.target.value)} />
      </div>
      <div className="kb-field-row">
        <div className="kb-field">
          <label htmlFor={`${ids}-vertical`}>{E.vertical}</label>
          <select id={`${ids}-vertical`} className="kb-select" value={vertical} onChange={(e) => setVertical(e.target.value as KnowledgeItemInput['vertical'])}>
            {VERTICAL_OPTIONS.map((id) => (
              <option key={id} value={id}>
                {verticalLabel(id)}
              </option>
            ))}
          </select>
        </div>
        <div className="kb-field">
          <label htmlFor={`${ids}-category`}>{E.category}</label>
          <input id={`${ids}-category`} type="text" value={category} onChange={(e) => setCategory(e.target.value)} />
        </div>
      </div>
      {legal && (
        <div className="kb-field-row">
          <div className="kb-field">
            <label htmlFor={`${ids}-jurisdiction`}>{E.jurisdiction}</label>
            <select
              id={`${ids}-jurisdiction`}
              className="kb-select"
              value={jurisdiction}
              aria-describedby={`${ids}-jurisdiction-hint`}
              onChange={(e) => {
                setJurisdiction(e.target.value);
                setSubRegion('');
              }}
            >
              <option value="">{E.generalJurisdiction}</option>
              {JURISDICTIONS.map((j) => (
                <option key={j.code} value={j.code}>
                  {`${j.name} (${j.code})`}
                </option>
              ))}
            </select>
          </div>
          {chosen && chosen.subRegions.length > 0 && (
            <div className="kb-field">
              <label htmlFor={`${ids}-sub-region`}>{E.subRegion(chosen.subRegionLabel ?? 'Region')}</label>
              <select id={`${ids}-sub-region`} className="kb-select" value={subRegion} onChange={(e) => setSubRegion(e.target.value)}>
                <option value="">{E.wholeJurisdiction(chosen.name)}</option>
                {chosen.subRegions.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
          )}
          <span id={`${ids}-jurisdiction-hint`} className="kb-field-hint kb-field-wide">
            {E.jurisdictionHint}
          </span>
        </div>
      )}
      <div className="kb-field">
        <label htmlFor={`${ids}-tags`}>{E.tags}</label>
        <input id={`${ids}-tags`} type="text" value={tagsText} onChange={(e) => setTagsText(e.target.value)} aria-describedby={`${ids}-tags-hint`} />
        <span id={`${ids}-tags-hint`} className="kb-field-hint">
          {E.tagsHint}
        </span>
      </div>
      </fieldset>

      <section className="kb-documents" aria-labelledby={`${ids}-documents`}>
        <h3 id={`${ids}-documents`}>{A.title}</h3>
        <AttachmentList attachments={attachments} onPreview={setPreviewing} onRemove={readOnly ? undefined : (id) => setAttachments((current) => current.filter((a) => a.id !== id))} />
        {!readOnly && (
        <FileDropZone label={A.add} accept={ATTACHMENT_ACCEPT} multiple onFiles={(files) => void addFiles(files)}>
          <UploadCloud size={22} aria-hidden="true" />
          <span className="kb-drop-prompt">{A.dropPrompt}</span>
          <span className="kb-drop-hint">{A.dropHint}</span>
          <span className="kb-drop-hint">{A.notYetSupported}</span>
        </FileDropZone>
        )}
        {reading > 0 && (
          <div className="kb-progress" role="status">
            <span>{A.reading(reading)}</span>
            <progress aria-label={A.reading(reading)} />
          </div>
        )}
      </section>

      {previewing && <AttachmentPreview attachment={previewing} content={previewContent ?? undefined} failed={storedContentFailed} onClose={() => setPreviewing(null)} />}
    </form>
  );
}
