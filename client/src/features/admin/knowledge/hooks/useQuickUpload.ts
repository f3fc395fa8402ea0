import type { KnowledgeItemInput } from '@shared/contracts/knowledge';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { flushSync } from 'react-dom';
import { knowledgeApi } from '../api/knowledge-api';
import { nameWithoutExtension, quickUploadKind, readAsArrayBuffer, readAsText } from '../files';
import { extractPdfText, type PdfJsModule } from '../pdf/pdf-text';
import { KNOWLEDGE } from '../strings';

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

const S = KNOWLEDGE.quickUpload;
const A = KNOWLEDGE.alerts;

/**
 * Quick upload (product-spec sections 5 and 8): a .txt, .json or .pdf file becomes a knowledge
 * item titled after the file, its text as content, category 'Uploaded', tags ['uploaded',
 * 'document'] (+ 'pdf'), in the filtered vertical. Every outcome is told with the spec's alert;
 * `progress` describes the step under way (reading, parsing page n of m, saving).
 */
export function useQuickUpload(options: { vertical: string; loadPdfJs: () => Promise<PdfJsModule>; onCreated: () => void }) {
  const { vertical, loadPdfJs, onCreated } = options;
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

  /** Reads, parses and saves `file`; returns the alert that tells how it went. */
  const steps = async (file: File): Promise<string> => {
    const kind = quickUploadKind(file.name);
    if (kind === 'excel') return S.officeNotSupported('Excel');
    if (kind === 'word') return S.officeNotSupported('Word');
    if (kind === 'unsupported') return S.unsupported(file.name);

    setProgress({ label: S.reading(file.name) });
    let text: string;
    if (kind === 'pdf') {
      const outcome = await pdfText(file);
      if ('alert' in outcome) return outcome.alert;
      text = outcome.text;
    } else {
      try {
        text = await readAsText(file);
      } catch (error) {
        console.error('Failed to read file', error);
        return A.emptyFile;
      }
      if (text.trim() === '') return A.emptyFile;
    }

    setProgress({ label: S.saving(file.name) });
    try {
      await create.mutateAsync({
        title: nameWithoutExtension(file.name),
        content: text,
        category: 'Uploaded',
        vertical: uploadVertical(vertical),
        tags: kind === 'pdf' ? ['uploaded', 'document', 'pdf'] : ['uploaded', 'document'],
        attachments: [],
      });
    } catch (error) {
      console.error('Failed to upload file', error);
      return A.uploadFailed;
    }
    onCreated();
    return kind === 'pdf' ? A.uploadedPdf(file.name) : A.uploaded(file.name);
  };

  const upload = async (file: File) => {
    let message: string;
    try {
      message = await steps(file);
    } catch (error) {
      console.error('Failed to upload file', error);
      message = A.uploadFailed;
    }
    // The progress goes away before the (blocking) alert shows.
    flushSync(() => setProgress(null));
    window.alert(message);
  };

  return { upload, progress };
}
