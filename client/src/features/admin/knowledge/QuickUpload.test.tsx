/** 'Quick Upload Document' (product-spec sections 5 and 8): files become knowledge items; PDFs are parsed in the browser. */
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PdfJsModule } from './pdf/pdf-text';
import { failingFileReader } from './testing/file-reader';
import { deferred, fail, fakeKnowledgeServer, makeKnowledgeItem, ok } from './testing/fake-knowledge-server';
import { loadLegacyPdfJs } from './testing/legacy-pdfjs';
import { makePdf } from './testing/make-pdf';
import { renderTab, textFile } from './testing/render-tab';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const input = () => within(screen.getByRole('region', { name: 'Quick Upload Document' })).getByLabelText('Upload a TXT, JSON or PDF document');
const pdfFile = (name: string, pages: string[][]) => new File([makePdf(pages)], name, { type: 'application/pdf' });

describe('quick upload', () => {
  it('offers TXT, JSON and PDF', () => {
    fakeKnowledgeServer();
    renderTab();
    expect(input()).toHaveAttribute('accept', '.txt,.json,.pdf');
    expect(input()).not.toHaveAttribute('multiple');
  });

  it("creates an item from a .txt file: title without extension, category 'Uploaded', customer-service for All Verticals, tags uploaded + document; then the success alert and a reload", async () => {
    const server = fakeKnowledgeServer();
    const { user, alert } = renderTab();
    await screen.findByText('No knowledge items found.');
    await user.upload(input(), textFile('Return policy.v2.txt', 'Unused items can be returned within 30 days.'));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Successfully uploaded: Return policy.v2.txt'));
    expect(server.callsTo('POST /api/knowledge').map((c) => c.body)).toEqual([
      { title: 'Return policy.v2', content: 'Unused items can be returned within 30 days.', category: 'Uploaded', vertical: 'customer-service', tags: ['uploaded', 'document'], attachments: [] },
    ]);
    expect(await screen.findByRole('button', { name: /Return policy\.v2/ })).toBeInTheDocument();
    expect(alert).toHaveBeenCalledTimes(1);
  });

  it('puts the item in the filtered vertical, and takes .JSON in any case', async () => {
    const server = fakeKnowledgeServer();
    const { user, alert } = renderTab();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'Sales');
    const json = '{"objection": "too expensive", "answer": "compare total cost"}';
    await user.upload(input(), textFile('OBJECTIONS.JSON', json, 'application/json'));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Successfully uploaded: OBJECTIONS.JSON'));
    expect(server.callsTo('POST /api/knowledge')[0].body).toMatchObject({ title: 'OBJECTIONS', content: json, vertical: 'sales', tags: ['uploaded', 'document'] });
  });

  it("parses a PDF in the browser: each page's text joined by spaces, pages by newlines; tags add 'pdf'", async () => {
    const server = fakeKnowledgeServer();
    const { user, alert } = renderTab();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'HR');
    await user.upload(input(), pdfFile('Employee Handbook.PDF', [['Welcome aboard', 'Coffee on floor two'], ['Twenty five vacation days'], ['Receipts within thirty days']]));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Successfully uploaded and parsed PDF: Employee Handbook.PDF'), { timeout: 5000 });
    expect(server.callsTo('POST /api/knowledge')[0].body).toEqual({
      title: 'Employee Handbook',
      content: 'Welcome aboard Coffee on floor two\nTwenty five vacation days\nReceipts within thirty days',
      category: 'Uploaded',
      vertical: 'hr',
      tags: ['uploaded', 'document', 'pdf'],
      attachments: [],
    });
  });

  it.each([
    ['budget.xlsx', 'Excel'],
    ['budget.XLS', 'Excel'],
    ['letter.docx', 'Word'],
    ['letter.doc', 'Word'],
  ])('refuses %s: not yet supported, suggests copy-paste, plain text or CSV-to-text, lists TXT, JSON, PDF', async (name, kind) => {
    const server = fakeKnowledgeServer();
    const { user, alert } = renderTab();
    await user.upload(input(), new File(['PK\u0003\u0004'], name));
    await waitFor(() => expect(alert).toHaveBeenCalledTimes(1));
    const message = alert.mock.calls[0][0] as string;
    expect(message).toMatch(new RegExp(`^${kind} files are not yet supported\\.`));
    expect(message).toContain('Copy and paste the content');
    expect(message).toContain('Convert the file to plain text (.txt)');
    expect(message).toContain('save as CSV and convert it to text');
    expect(message).toContain('Supported formats: TXT, JSON, PDF');
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it('refuses other types with the supported formats', async () => {
    const server = fakeKnowledgeServer();
    const { user, alert } = renderTab();
    await user.upload(input(), new File(['x'], 'photo.png', { type: 'image/png' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('"photo.png" is not a supported file type.\n\nSupported formats: TXT, JSON, PDF'));
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it.each([
    ['empty.txt', ''],
    ['blank.txt', '  \n\t  '],
    ['blank.json', '\n\n'],
  ])("%s gets 'The file appears to be empty or could not be read.'", async (name, text) => {
    const server = fakeKnowledgeServer();
    const { user, alert } = renderTab();
    await user.upload(input(), textFile(name, text));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('The file appears to be empty or could not be read.'));
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it('a text file that cannot be read gets the same alert', async () => {
    const server = fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, alert } = renderTab();
    vi.stubGlobal('FileReader', failingFileReader());
    await user.upload(input(), textFile('notes.txt', 'hello'));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('The file appears to be empty or could not be read.'));
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it("a PDF without extractable text gets 'The PDF appears to be empty or contains no extractable text.'", async () => {
    const server = fakeKnowledgeServer();
    const { user, alert } = renderTab();
    await user.upload(input(), pdfFile('scan.pdf', [[], []]));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('The PDF appears to be empty or contains no extractable text.'), { timeout: 5000 });
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it('a corrupted PDF gets the parse failure alert', async () => {
    const server = fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, alert } = renderTab();
    await user.upload(input(), new File(['%PDF-1.4 garbage that ends abruptly'], 'broken.pdf', { type: 'application/pdf' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Failed to parse PDF file. The file may be corrupted or contain only images.'), { timeout: 5000 });
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it("a PDF that cannot be read gets 'Failed to read PDF file.'", async () => {
    const server = fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, alert } = renderTab();
    vi.stubGlobal('FileReader', failingFileReader());
    await user.upload(input(), pdfFile('handbook.pdf', [['text']]));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Failed to read PDF file.'));
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it('the PDF reader failing to load gets the upload failure alert', async () => {
    fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, alert } = renderTab({ loadPdfJs: () => Promise.reject(new TypeError('Failed to fetch dynamically imported module')) });
    await user.upload(input(), pdfFile('handbook.pdf', [['text']]));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Failed to upload file. Please try again.'));
  });

  it('a refused create gets the upload failure alert', async () => {
    const server = fakeKnowledgeServer();
    server.on('POST /api/knowledge', () => fail(413, 'payload_too_large', 'content is larger than 1 MB'));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, alert } = renderTab();
    await user.upload(input(), textFile('notes.txt', 'hello'));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Failed to upload file. Please try again.'));
    expect(alert).toHaveBeenCalledTimes(1);
  });

  it('shows progress while reading, loading the PDF reader, parsing each page and saving, with the drop area disabled; it goes away before the alert', async () => {
    const server = fakeKnowledgeServer();
    let releaseReader!: () => void;
    const readerGate = new Promise<void>((resolve) => (releaseReader = resolve));
    // The real PDF.js, with each page taking a moment (as in a real document) so every step renders.
    const loadPdfJs = async (): Promise<PdfJsModule> => {
      await readerGate;
      const pdfjs = await loadLegacyPdfJs();
      const getDocument: PdfJsModule['getDocument'] = (source) => {
        const task = pdfjs.getDocument(source);
        const promise = task.promise.then((document) => {
          const getPage = document.getPage.bind(document);
          document.getPage = async (number) => {
            await new Promise((resolve) => setTimeout(resolve, 30));
            return getPage(number);
          };
          return document;
        });
        return Object.defineProperty(Object.create(task), 'promise', { value: promise });
      };
      return { ...pdfjs, getDocument };
    };
    const saving = deferred(ok(makeKnowledgeItem({ title: 'handbook' }), 201));
    server.on('POST /api/knowledge', saving.handler);
    const { user, alert } = renderTab({ loadPdfJs });
    alert.mockImplementation(() => expect(screen.queryByRole('status')).not.toBeInTheDocument());
    const shown = new Set<string>();
    const observer = new MutationObserver(() => {
      const status = document.querySelector('[role="status"]');
      if (status?.textContent) shown.add(status.textContent);
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });

    await user.upload(input(), pdfFile('handbook.pdf', [['One'], ['Two']]));
    expect(await screen.findByRole('status')).toHaveTextContent('Loading the PDF reader...');
    expect(input()).toBeDisabled();
    expect(screen.getByText('Uploading...')).toBeInTheDocument();
    releaseReader();
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Saving handbook.pdf...'), { timeout: 5000 });
    saving.release();
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Successfully uploaded and parsed PDF: handbook.pdf'));
    expect(input()).toBeEnabled();
    observer.disconnect();
    expect([...shown]).toEqual(['Reading handbook.pdf...', 'Loading the PDF reader...', 'Reading page 1 of 2...', 'Reading page 2 of 2...', 'Saving handbook.pdf...']);
  });
});
