/** 'Quick Upload Document': files become knowledge items; PDFs are parsed in the browser. */
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PdfJsModule } from './pdf/pdf-text';
import { failingFileReader } from './testing/file-reader';
import { deferred, fail, fakeKnowledgeServer, makeKnowledgeItem, ok } from './testing/fake-knowledge-server';
import { loadLegacyPdfJs } from './testing/legacy-pdfjs';
import { makePdf } from './testing/make-pdf';
import { expectNotice, noticeTexts, renderTab, textFile } from './testing/render-tab';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const input = () => within(screen.getByRole('region', { name: 'Quick Upload Document' })).getByLabelText('Upload a TXT, JSON, PDF, DOCX, Markdown, HTML, CSV or XLSX document');
const pdfFile = (name: string, pages: string[][]) => new File([makePdf(pages)], name, { type: 'application/pdf' });
/** The review step: waits for it, optionally edits it, then creates. */
async function confirmReview(user: ReturnType<typeof renderTab>['user'], button: string | RegExp = 'Create item') {
  const dialog = await screen.findByRole('dialog', {}, { timeout: 5000 });
  await user.click(within(dialog).getByRole('button', { name: button }));
}

describe('quick upload', () => {
  it('offers TXT, JSON, PDF, DOCX, Markdown, HTML, CSV and XLSX', () => {
    fakeKnowledgeServer();
    renderTab();
    expect(input()).toHaveAttribute('accept', '.txt,.json,.pdf,.docx,.md,.markdown,.html,.htm,.csv,.xlsx');
    expect(input()).not.toHaveAttribute('multiple');
  });

  it("a .txt file opens the review first (nothing created yet): vertical, a prettified title and category 'Uploaded' prefilled; created on confirm, then the success alert and a reload", async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await screen.findByText('No knowledge items found.');
    await user.upload(input(), textFile('return-policy_v2.txt', 'Unused items can be returned within 30 days.'));
    const dialog = await screen.findByRole('dialog', { name: 'Review upload: return-policy_v2.txt' });
    expect(within(dialog).getByLabelText('Vertical')).toHaveValue('customer-service');
    expect(within(dialog).getByLabelText('Title')).toHaveValue('Return policy v2');
    expect(within(dialog).getByLabelText('Category')).toHaveValue('Uploaded');
    expect(within(dialog).getByText('Unused items can be returned within 30 days.')).toBeInTheDocument();
    expect(server.callsTo('POST /api/knowledge')).toEqual([]);
    await user.selectOptions(within(dialog).getByLabelText('Vertical'), 'hr');
    await user.clear(within(dialog).getByLabelText('Title'));
    await user.type(within(dialog).getByLabelText('Title'), 'Returns');
    await user.clear(within(dialog).getByLabelText('Category'));
    await user.type(within(dialog).getByLabelText('Category'), 'Policies');
    await user.click(within(dialog).getByRole('button', { name: 'Create item' }));
    await expectNotice('Successfully uploaded: return-policy_v2.txt');
    expect(server.callsTo('POST /api/knowledge').map((c) => c.body)).toEqual([
      { title: 'Returns', content: 'Unused items can be returned within 30 days.', category: 'Policies', vertical: 'hr', tags: ['uploaded', 'document'], attachments: [] },
    ]);
    expect(await screen.findByRole('button', { name: /Returns/ })).toBeInTheDocument();
    expect(noticeTexts()).toHaveLength(1);
  });

  it('Cancel in the review creates nothing', async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await user.upload(input(), textFile('notes.txt', 'hello'));
    await confirmReview(user, 'Cancel');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(server.callsTo('POST /api/knowledge')).toEqual([]);
  });

  it("a JSON object's fields become the item's fields (others as labelled lines, never raw JSON); the filtered vertical when it has none; .JSON in any case", async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'sales');
    const json = '{"title": "Too expensive", "answer": "Compare the total cost over three years.", "category": "Objections", "tags": ["price"], "priority": "high"}';
    await user.upload(input(), textFile('OBJECTIONS.JSON', json, 'application/json'));
    await confirmReview(user);
    await expectNotice('Successfully uploaded: OBJECTIONS.JSON');
    expect(server.callsTo('POST /api/knowledge')[0].body).toEqual({
      title: 'Too expensive',
      content: 'Compare the total cost over three years.\nPriority: high',
      category: 'Objections',
      vertical: 'sales',
      tags: ['price'],
      attachments: [],
    });
  });

  it('a JSON array becomes one item per element, previewed in a table before any is created', async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    const json = JSON.stringify([
      { title: 'Dental plan', content: 'Two check-ups a year.', vertical: 'hr', category: 'Benefits' },
      { question: 'Where is the office?', answer: 'Floor two.' },
      { title: 'Refunds', body: 'Within 30 days.', tags: 'refund, money' },
    ]);
    await user.upload(input(), textFile('faq.json', json, 'application/json'));
    const dialog = await screen.findByRole('dialog', { name: 'Review upload: faq.json' });
    const rows = within(within(dialog).getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getByRole('rowheader').textContent)).toEqual(['Dental plan', 'Where is the office?', 'Refunds']);
    expect(rows[0]).toHaveTextContent('Employee Support');
    expect(server.callsTo('POST /api/knowledge')).toEqual([]);
    await user.selectOptions(within(dialog).getByLabelText('Vertical'), 'sales');
    await user.click(within(dialog).getByRole('button', { name: 'Create 3 items' }));
    await expectNotice('Successfully uploaded: faq.json\n3 items created.');
    expect(server.callsTo('POST /api/knowledge').map((c) => c.body)).toEqual([
      { title: 'Dental plan', content: 'Two check-ups a year.', category: 'Benefits', vertical: 'hr', tags: ['uploaded', 'document'], attachments: [] },
      { title: 'Where is the office?', content: 'Floor two.', category: 'Uploaded', vertical: 'sales', tags: ['uploaded', 'document'], attachments: [] },
      { title: 'Refunds', content: 'Within 30 days.', category: 'Uploaded', vertical: 'sales', tags: ['refund', 'money'], attachments: [] },
    ]);
  });

  it('a file that is not valid JSON gets the upload failure alert with the reason, and nothing is created', async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await user.upload(input(), textFile('broken.json', '{"title": ', 'application/json'));
    await waitFor(() => expect(noticeTexts()[0]).toMatch(/^Failed to upload file\. Please try again\.\nThe file is not valid JSON/));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(server.callsTo('POST /api/knowledge')).toEqual([]);
  });

  it("parses a PDF in the browser: a line per line, a blank line between pages; tags add 'pdf'", async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'hr');
    await user.upload(input(), pdfFile('Employee Handbook.PDF', [['Welcome aboard', 'Coffee on floor two'], ['Twenty five vacation days'], ['Receipts within thirty days']]));
    await confirmReview(user);
    await expectNotice('Successfully uploaded and parsed PDF: Employee Handbook.PDF', { timeout: 5000 });
    expect(server.callsTo('POST /api/knowledge')[0].body).toEqual({
      title: 'Employee Handbook',
      content: 'Welcome aboard\nCoffee on floor two\n\nTwenty five vacation days\n\nReceipts within thirty days',
      category: 'Uploaded',
      vertical: 'hr',
      tags: ['uploaded', 'document', 'pdf'],
      attachments: [],
    });
  });

  it.each([
    ['budget.XLS', 'Excel', 'xls', 'xlsx'],
    ['letter.doc', 'Word', 'doc', 'docx'],
  ])('refuses the legacy %s: not yet supported, suggests the newer format, copy-paste or plain text, lists the supported formats', async (name, kind, ext, newer) => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await user.upload(input(), new File(['PK\u0003\u0004'], name));
    await waitFor(() => expect(noticeTexts()).toHaveLength(1));
    const message = noticeTexts()[0];
    expect(message.startsWith(`Legacy ${kind} files (.${ext}) are not yet supported.`)).toBe(true);
    expect(message).toContain(`Save the file as .${newer} and upload that`);
    expect(message).toContain('Copy and paste the content');
    expect(message).toContain('Convert the file to plain text (.txt)');
    expect(message).toContain('Supported formats: TXT, JSON, PDF, DOCX, Markdown, HTML, CSV, XLSX');
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
    expect(server.callsTo('POST /api/knowledge/import/file')).toHaveLength(0);
  });

  it('a Word file is converted by the server without storing it; the review shows the Markdown it became, and confirming creates it', async () => {
    const server = fakeKnowledgeServer();
    server.on('POST /api/knowledge/import/file', (_body, url) =>
      ok({ fileName: 'gift-wrapping.docx', format: 'docx', stored: false, convertMs: 12, items: [{ title: 'Gift wrapping', content: '## Prices\n\n| Style | Price |\n| --- | --- |\n| Classic | $4 |', category: url.searchParams.get('category'), vertical: url.searchParams.get('vertical'), tags: ['uploaded', 'document', 'docx'] }] }, 201),
    );
    const { user } = renderTab();
    await user.upload(input(), new File(['PK\u0003\u0004 fake docx'], 'gift-wrapping.docx'));
    const dialog = await screen.findByRole('dialog', { name: 'Review upload: gift-wrapping.docx' });
    expect(server.callsTo('POST /api/knowledge/import/file').map((c) => ({ query: c.query, file: c.body.fileName }))).toEqual([{ query: { vertical: 'customer-service', category: 'Uploaded', preview: 'true' }, file: 'gift-wrapping.docx' }]);
    expect(within(dialog).getByLabelText('Title')).toHaveValue('Gift wrapping');
    expect(within(dialog).getByText(/\| Classic \| \$4 \|/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Create item' }));
    await expectNotice('Successfully uploaded: gift-wrapping.docx');
    expect(server.callsTo('POST /api/knowledge').map((c) => c.body)).toEqual([
      { title: 'Gift wrapping', content: '## Prices\n\n| Style | Price |\n| --- | --- |\n| Classic | $4 |', category: 'Uploaded', vertical: 'customer-service', tags: ['uploaded', 'document', 'docx'], attachments: [] },
    ]);
  });

  it("a file the server refuses to convert gets the upload failure alert with the server's reason, and nothing is created", async () => {
    const server = fakeKnowledgeServer();
    server.on('POST /api/knowledge/import/file', () => fail(413, 'payload_too_large', '"bomb.docx" would unpack to more than 100 MB; it is refused as a possible zip bomb'));
    const { user } = renderTab();
    await user.upload(input(), new File(['PK'], 'bomb.docx'));
    await expectNotice('Failed to upload file. Please try again.\n"bomb.docx" would unpack to more than 100 MB; it is refused as a possible zip bomb');
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it('refuses other types with the supported formats', async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await user.upload(input(), new File(['x'], 'photo.png', { type: 'image/png' }));
    await expectNotice('"photo.png" is not a supported file type.\n\nSupported formats: TXT, JSON, PDF, DOCX, Markdown, HTML, CSV, XLSX');
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it.each([
    ['empty.txt', ''],
    ['blank.txt', '  \n\t  '],
    ['blank.json', '\n\n'],
  ])("%s gets 'The file appears to be empty or could not be read.'", async (name, text) => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await user.upload(input(), textFile(name, text));
    await expectNotice('The file appears to be empty or could not be read.');
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it('a text file that cannot be read gets the same alert', async () => {
    const server = fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    vi.stubGlobal('FileReader', failingFileReader());
    await user.upload(input(), textFile('notes.txt', 'hello'));
    await expectNotice('The file appears to be empty or could not be read.');
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it("a PDF without extractable text gets 'The PDF appears to be empty or contains no extractable text.'", async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await user.upload(input(), pdfFile('scan.pdf', [[], []]));
    await expectNotice('The PDF appears to be empty or contains no extractable text.', { timeout: 5000 });
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it('a corrupted PDF gets the parse failure alert', async () => {
    const server = fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    await user.upload(input(), new File(['%PDF-1.4 garbage that ends abruptly'], 'broken.pdf', { type: 'application/pdf' }));
    await expectNotice('Failed to parse PDF file. The file may be corrupted or contain only images.', { timeout: 5000 });
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it("a PDF that cannot be read gets 'Failed to read PDF file.'", async () => {
    const server = fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    vi.stubGlobal('FileReader', failingFileReader());
    await user.upload(input(), pdfFile('handbook.pdf', [['text']]));
    await expectNotice('Failed to read PDF file.');
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(0);
  });

  it('the PDF reader failing to load gets the upload failure alert', async () => {
    fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab({ loadPdfJs: () => Promise.reject(new TypeError('Failed to fetch dynamically imported module')) });
    await user.upload(input(), pdfFile('handbook.pdf', [['text']]));
    await expectNotice('Failed to upload file. Please try again.');
  });

  it("a refused create gets the upload failure alert, word for word, with the server's reason under it", async () => {
    const server = fakeKnowledgeServer();
    server.on('POST /api/knowledge', () => fail(413, 'payload_too_large', 'content is larger than 1 MB'));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    await user.upload(input(), textFile('notes.txt', 'hello'));
    await confirmReview(user);
    const notice = await expectNotice('Failed to upload file. Please try again.\ncontent is larger than 1 MB');
    expect(notice).toHaveAttribute('role', 'alert');
    expect(noticeTexts()).toHaveLength(1);
  });

  it('shows progress while reading, loading the PDF reader, parsing each page and saving, with the drop area disabled; it goes away with the outcome notice', async () => {
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
    const { user } = renderTab({ loadPdfJs });
    const shown = new Set<string>();
    const observer = new MutationObserver(() => {
      const status = document.querySelector('.kb-progress[role="status"]');
      if (status?.textContent) shown.add(status.textContent);
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });

    await user.upload(input(), pdfFile('handbook.pdf', [['One'], ['Two']]));
    expect(await screen.findByRole('status')).toHaveTextContent('Loading the PDF reader...');
    expect(input()).toBeDisabled();
    expect(screen.getByText('Uploading...')).toBeInTheDocument();
    releaseReader();
    await confirmReview(user);
    await waitFor(() => expect(document.querySelector('.kb-progress[role="status"]')).toHaveTextContent('Saving handbook.pdf...'), { timeout: 5000 });
    saving.release();
    await expectNotice('Successfully uploaded and parsed PDF: handbook.pdf');
    expect(document.querySelector('.kb-progress')).toBeNull();
    expect(input()).toBeEnabled();
    observer.disconnect();
    expect([...shown]).toEqual(['Reading handbook.pdf...', 'Loading the PDF reader...', 'Reading page 1 of 2...', 'Reading page 2 of 2...', 'Saving handbook.pdf...']);
  });
});
