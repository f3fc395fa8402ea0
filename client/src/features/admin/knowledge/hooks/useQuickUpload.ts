import type { KnowledgeItemInput } from '@shared/contracts/knowledge';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { Notify } from '../../../../components/Notices';
import { ApiError } from '../../../../lib/api';
import { knowledgeApi } from '../api/knowledge-api';
import { extensionOf, quickUploadKind, readAsArrayBuffer, readAsText } from '../files';
import { draftFromText, draftsFromJson } from '../quick-upload-drafts';
import { extractPdfText, type PdfJsModule } from '../pdf/pdf-text';
import { KNOWLEDGE } from '../strings';

/** A parsed file waiting for the admin's review: one item, or one per element of a JSON array. */
export interface UploadReview {
  fileName: string;
  kind: 'text' | 'json' | 'pdf' | 'converted';
  drafts: KnowledgeItemInput[];
  /** The vertical and category of items that set none of their own. */
  defaults: { vertical: KnowledgeItemInput['vertical']; category: string };
}

export interface UploadProgress {
  label: string;
  /** 0..1 when known (share of the pages already read), else undefined (indeterminate). */
  fraction?: number;
}

/** The vertical a quick upload goes to: the list's filter, or customer-service for 'all'. */
export function uploadVertical(filter: string): KnowledgeItemInput['vertical'] {
  // The filter only offers the contract's verticals (and 'all'); the contract check refuses anything else.
  return (filter === 'all' ? 'customer-service' : filter) as KnowledgeItemInput['vertical'];
}

/**
 * An alert text, word for word, followed by the server's reason when it gave one (a
 * refusal: 4xx, e.g. 'Title is required' or a too-large body).
 */
export function withReason(alert: string, error: unknown): string {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.message ? `${alert}\n${error.message}` : alert;
}

const S = KNOWLEDGE.quickUpload;
const A = KNOWLEDGE.alerts;

/**
 * Quick upload: a .txt, .json or .pdf file is read and parsed
 * into items (titled after the file, category 'Uploaded', tags ['uploaded', 'document'] (+ 'pdf'),
 * the filtered vertical; a JSON file's own fields win), which the admin reviews (`review`) and
 * then confirms or cancels. Every outcome is told with its alert as an in-page notice;
 * `progress` describes the step under way (reading, parsing page n of m, saving).
 */
export function useQuickUpload(options: { vertical: string; loadPdfJs: () => Promise<PdfJsModule>; onCreated: () => void; notify: Notify }) {
  const { vertical, loadPdfJs, onCreated, notify } = options;
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const create = useMutation({ mutationFn: knowledgeApi.create });

  /** The text of a PDF, or the alert that tells why there is none. */
  const pdfText = async (file: File): Promise<{ text: string } | { alert: string }> => {
    let data: ArrayBuffer;
    try {
      data = await readAsArrayBuffer(file);
    } catch (error) {
      console.error('Failed to read PDF file', error);
      return { alert: A.pdfReadFailed };
    }
    setProgress({ label: S.loadingParser });
    let pdfjs: PdfJsModule;
    try {
      pdfjs = await loadPdfJs();
    } catch (error) {
      console.error('Failed to load the PDF reader', error);
      return { alert: A.uploadFailed };
    }
    try {
      const text = await extractPdfText(pdfjs, data, (page, pages) => setProgress({ label: S.parsing(page, pages), fraction: (page - 1) / pages }));
      return text.trim() === '' ? { alert: A.emptyPdf } : { text };
    } catch (error) {
      console.error('Failed to parse PDF file', error);
      return { alert: A.pdfParseFailed };
    }
  };

  const [review, setReview] = useState<UploadReview | null>(null);

  /** Reads and parses `file`: the items to review, or the alert that tells why there are none. */
  const steps = async (file: File): Promise<{ review: UploadReview } | { alert: string }> => {
    const kind = quickUploadKind(file.name);
    if (kind === 'excel') return { alert: S.officeNotSupported('Excel') };
    if (kind === 'word') return { alert: S.officeNotSupported('Word') };
    if (kind === 'unsupported') return { alert: S.unsupported(file.name) };
    if (kind === 'convert') {
      // Converted on the server (nothing stored yet): the review shows the Markdown it became.
      setProgress({ label: S.converting(file.name) });
      const defaults = { vertical: uploadVertical(vertical), category: 'Uploaded' };
      let converted: Awaited<ReturnType<typeof knowledgeApi.importFile>>;
      try {
        converted = await knowledgeApi.importFile(file, { ...defaults, preview: true });
      } catch (error) {
        console.error('Failed to convert file', error);
        return { alert: withReason(A.uploadFailed, error) };
      }
      const drafts = converted.items.map((i) => ({ title: i.title, content: i.content, category: i.category, vertical: i.vertical as KnowledgeItemInput['vertical'], tags: i.tags, attachments: [] }));
      return { review: { fileName: file.name, kind: 'converted', drafts, defaults } };
    }

    setProgress({ label: S.reading(file.name) });
    const defaults = { vertical: uploadVertical(vertical), category: 'Uploaded', tags: kind === 'pdf' ? ['uploaded', 'document', 'pdf'] : ['uploaded', 'document'] };
    if (kind === 'pdf') {
      const outcome = await pdfText(file);
      if ('alert' in outcome) return outcome;
      return { review: { fileName: file.name, kind: 'pdf', drafts: [draftFromText(file.name, outcome.text, defaults)], defaults } };
    }
    let text: string;
    try {
      text = await readAsText(file);
    } catch (error) {
      console.error('Failed to read file', error);
      return { alert: A.emptyFile };
    }
    if (text.trim() === '') return { alert: A.emptyFile };
    if (extensionOf(file.name) === '.json') {
      const parsed = draftsFromJson(text, file.name, defaults);
      if ('problem' in parsed) return { alert: `${A.uploadFailed}\n${parsed.problem}` };
      return { review: { fileName: file.name, kind: 'json', drafts: parsed.drafts, defaults } };
    }
    return { review: { fileName: file.name, kind: 'text', drafts: [draftFromText(file.name, text, defaults)], defaults } };
  };

  const upload = async (file: File) => {
    let outcome: Awaited<ReturnType<typeof steps>>;
    try {
      outcome = await steps(file);
    } catch (error) {
      console.error('Failed to upload file', error);
      outcome = { alert: A.uploadFailed };
    }
    setProgress(null);
    if ('alert' in outcome) notify(outcome.alert, { tone: 'error' });
    else setReview(outcome.review);
  };

  /** Creates the reviewed items one by one; the success alert once all are saved. */
  const confirm = async (drafts: KnowledgeItemInput[]) => {
    const current = review;
    if (!current) return;
    setReview(null);
    let created = 0;
    try {
      for (const draft of drafts) {
        setProgress({ label: S.saving(current.fileName), fraction: drafts.length > 1 ? created / drafts.length : undefined });
        await create.mutateAsync(draft);
        created += 1;
      }
    } catch (error) {
      console.error('Failed to upload file', error);
      setProgress(null);
      if (created > 0) onCreated();
      notify(withReason(A.uploadFailed, error) + (drafts.length > 1 ? `\n${S.createdSome(created, drafts.length)}` : ''), { tone: 'error' });
      return;
    }
    setProgress(null);
    onCreated();
    const done = current.kind === 'pdf' ? A.uploadedPdf(current.fileName) : A.uploaded(current.fileName);
    notify(drafts.length > 1 ? `${done}\n${S.createdMany(drafts.length)}` : done, { tone: 'success' });
  };

  const cancel = () => setReview(null);

  return { upload, progress, review, confirm, cancel };
}
