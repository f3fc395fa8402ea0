/** The editor's 'Supporting Documents': add, check, preview, remove, save. */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { failingFileReader, gatedFileReader } from './testing/file-reader';
import { deferred, fakeKnowledgeServer, makeAttachment, makeKnowledgeItem, ok } from './testing/fake-knowledge-server';
import { expectNotice, noticeTexts, pngFile, renderTab, textFile } from './testing/render-tab';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const documents = () => screen.getByRole('list', { name: 'Supporting Documents' });
const addInput = () => screen.getByLabelText('Add supporting documents');

async function openNew(user: ReturnType<typeof renderTab>['user']) {
  await user.click(screen.getByRole('button', { name: 'New knowledge item' }));
  await user.type(screen.getByLabelText('Title'), 'Heater setup');
}

describe('supporting documents', () => {
  it('the drop area takes several files (text, Markdown, documents converted by the server, images) and says legacy DOC and XLS are not yet supported', async () => {
    fakeKnowledgeServer();
    const { user } = renderTab();
    await openNew(user);
    expect(screen.getByText('No supporting documents yet.')).toBeInTheDocument();
    const input = addInput();
    expect(input).toHaveAttribute('type', 'file');
    expect(input).toHaveAttribute('multiple');
    expect(input).toHaveAttribute('accept', '.txt,.json,.md,.markdown,.docx,.xlsx,.csv,.html,.htm,.pdf,.png,.jpg,.jpeg');
    expect(screen.getByText('Drag and drop files here, or click to choose')).toBeInTheDocument();
    expect(screen.getByText('Legacy DOC and XLS attachments are not yet supported.')).toBeInTheDocument();
  });

  it('lists added files with name and human-readable size, and saves images as data URLs and the rest as text', async () => {
    const server = fakeKnowledgeServer();
    const { user } = renderTab();
    await openNew(user);
    const json = '{"steps": ["switch off", "connect"]}';
    await user.upload(addInput(), [pngFile('wiring.png'), textFile('steps.txt', 'x'.repeat(1536)), textFile('config.json', json, 'application/json')]);

    const png = await within(await screen.findByRole('list', { name: 'Supporting Documents' })).findByRole('listitem', { name: 'wiring.png' });
    expect(png).toHaveTextContent('70 Bytes');
    expect(within(documents()).getByRole('listitem', { name: 'steps.txt' })).toHaveTextContent('1.5 KB');
    expect(within(documents()).getByRole('listitem', { name: 'config.json' })).toHaveTextContent(`${json.length} Bytes`);

    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Select a knowledge item to edit or create a new one');
    const [post] = server.callsTo('POST /api/knowledge');
    expect(post.body.attachments).toEqual([
      { name: 'wiring.png', type: 'image/png', size: 70, content: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) },
      { name: 'steps.txt', type: 'text/plain', size: 1536, content: 'x'.repeat(1536) },
      { name: 'config.json', type: 'application/json', size: json.length, content: json },
    ]);
  });

  it('accepts files dropped on the area', async () => {
    fakeKnowledgeServer();
    const { user } = renderTab();
    await openNew(user);
    fireEvent.drop(screen.getByText('Drag and drop files here, or click to choose'), { dataTransfer: { files: [textFile('a.txt', 'alpha'), pngFile('b.png')] } });
    expect(await within(await screen.findByRole('list', { name: 'Supporting Documents' })).findByRole('listitem', { name: 'a.txt' })).toBeInTheDocument();
    expect(within(documents()).getByRole('listitem', { name: 'b.png' })).toBeInTheDocument();
  });

  it('a Word attachment is converted by the server (nothing stored there) and saved as its Markdown, its own supporting document', async () => {
    const server = fakeKnowledgeServer();
    const markdown = '# Warranty claims\n\n1. Keep the receipt\n2. Call us';
    server.on('POST /api/knowledge/import/file', () => ok({ fileName: 'warranty.docx', format: 'docx', stored: false, convertMs: 5, items: [{ title: 'Warranty', content: markdown, category: 'Uploaded', vertical: 'customer-service', tags: [] }] }, 201));
    const { user } = renderTab();
    await openNew(user);
    await user.upload(addInput(), new File(['PK fake'], 'warranty.docx'));
    await within(await screen.findByRole('list', { name: 'Supporting Documents' })).findByRole('listitem', { name: 'warranty.docx' });
    expect(server.callsTo('POST /api/knowledge/import/file')[0].query).toMatchObject({ preview: 'true' });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Select a knowledge item to edit or create a new one');
    expect(server.callsTo('POST /api/knowledge')[0].body.attachments).toEqual([{ name: 'warranty.docx', type: 'text/markdown', size: markdown.length, content: markdown }]);
  });

  it.each(['letter.doc', 'budget.xls'])("refuses the legacy %s with the 'not yet supported' message", async (name) => {
    fakeKnowledgeServer();
    const { user } = renderTab();
    await openNew(user);
    await user.upload(addInput(), new File(['%PDF-1.4 or PK...'], name));
    await expectNotice(`"${name}": legacy DOC and XLS attachments are not yet supported. Save the file as .docx or .xlsx.`);
    expect(screen.getByText('No supporting documents yet.')).toBeInTheDocument();
  });

  it('refuses other types, and files over 10MB with a clear message, while keeping the acceptable ones of the same drop', async () => {
    fakeKnowledgeServer();
    const { user } = renderTab();
    await openNew(user);
    const limit = 10 * 1024 * 1024;
    await user.upload(addInput(), [new File(['GIF89a'], 'clip.gif'), new File([new Uint8Array(limit + 1)], 'huge.txt'), new File([new Uint8Array(limit)], 'exactly-10mb.txt'), textFile('ok.txt', 'fine')]);
    expect(noticeTexts()).toEqual([
      '"clip.gif" is not a supported type. Use .txt, .json, .md, .docx, .xlsx, .csv, .html, .pdf, .png, .jpg or .jpeg files.\n"huge.txt" is larger than 10MB, the limit for each file.',
    ]);
    const list = await screen.findByRole('list', { name: 'Supporting Documents' });
    expect(await within(list).findByRole('listitem', { name: 'exactly-10mb.txt' })).toHaveTextContent('10 MB');
    expect(within(list).getByRole('listitem', { name: 'ok.txt' })).toBeInTheDocument();
    expect(within(list).queryByRole('listitem', { name: 'huge.txt' })).not.toBeInTheDocument();
  });

  it("shows 'Reading ... files' while files are read, then lists them", async () => {
    fakeKnowledgeServer();
    const gated = gatedFileReader(FileReader);
    const { user } = renderTab();
    await openNew(user);
    vi.stubGlobal('FileReader', gated.Reader);
    await user.upload(addInput(), [textFile('a.txt', 'alpha'), textFile('b.txt', 'bravo')]);
    expect(await screen.findByRole('status')).toHaveTextContent('Reading 2 files...');
    gated.release();
    expect(await within(await screen.findByRole('list', { name: 'Supporting Documents' })).findByRole('listitem', { name: 'b.txt' })).toBeInTheDocument();
    expect(screen.queryByText('Reading 2 files...')).not.toBeInTheDocument();
  });

  it('a file that cannot be read shows the upload failure alert', async () => {
    fakeKnowledgeServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    await openNew(user);
    vi.stubGlobal('FileReader', failingFileReader());
    await user.upload(addInput(), textFile('a.txt', 'alpha'));
    await expectNotice('Failed to upload file. Please try again.');
    expect(screen.getByText('No supporting documents yet.')).toBeInTheDocument();
  });

  it('previews a new text file as text and a new image as an image; the dialog closes', async () => {
    fakeKnowledgeServer();
    const { user } = renderTab();
    await openNew(user);
    await user.upload(addInput(), [textFile('steps.txt', 'Step 1: switch off.\nStep 2: connect.'), pngFile('wiring.png')]);
    await user.click(await screen.findByRole('button', { name: 'Preview steps.txt' }));
    let dialog = screen.getByRole('dialog', { name: 'steps.txt' });
    expect(dialog.querySelector('pre')?.textContent).toBe('Step 1: switch off.\nStep 2: connect.');
    expect(within(dialog).getByText('36 Bytes')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Close preview' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Preview wiring.png' }));
    dialog = screen.getByRole('dialog', { name: 'wiring.png' });
    expect(within(dialog).getByRole('img', { name: 'wiring.png' }).getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("previews a stored attachment with the content fetched with the item ('Loading preview...' until then)", async () => {
    const item = makeKnowledgeItem({ id: 'heater', title: 'Heater', attachments: [makeAttachment({ id: 'steps', name: 'steps.txt', content: 'Stored steps.' })] });
    const server = fakeKnowledgeServer([item]);
    const pending = deferred(ok(item));
    server.on('GET /api/knowledge/heater', pending.handler);
    const { user } = renderTab();
    await user.click(await screen.findByRole('button', { name: /Heater/ }));
    await user.click(screen.getByRole('button', { name: 'Preview steps.txt' }));
    const dialog = screen.getByRole('dialog', { name: 'steps.txt' });
    expect(within(dialog).getByRole('status')).toHaveTextContent('Loading preview...');
    pending.release();
    await waitFor(() => expect(dialog.querySelector('pre')?.textContent).toBe('Stored steps.'));
  });

  it('says so when the stored content could not be fetched', async () => {
    const item = makeKnowledgeItem({ id: 'heater', title: 'Heater', attachments: [makeAttachment({ id: 'steps', name: 'steps.txt' })] });
    const server = fakeKnowledgeServer([item]);
    server.on('GET /api/knowledge/heater', () => 'network-error');
    const { user } = renderTab();
    await user.click(await screen.findByRole('button', { name: /Heater/ }));
    await waitFor(() => expect(server.callsTo('GET /api/knowledge/heater')).toHaveLength(1));
    await user.click(screen.getByRole('button', { name: 'Preview steps.txt' }));
    expect(await within(screen.getByRole('dialog', { name: 'steps.txt' })).findByRole('alert')).toHaveTextContent('The preview could not be loaded.');
  });

  it('the remove button drops the attachment (by id); the saved item no longer has it, the other is kept by id', async () => {
    const item = makeKnowledgeItem({
      id: 'heater',
      title: 'Heater',
      attachments: [makeAttachment({ id: 'a1', name: 'same-name.txt', size: 3 }), makeAttachment({ id: 'a2', name: 'same-name.txt', size: 5 })],
    });
    const server = fakeKnowledgeServer([item]);
    const { user } = renderTab();
    await user.click(await screen.findByRole('button', { name: /Heater/ }));
    const [first] = within(documents()).getAllByRole('listitem', { name: 'same-name.txt' });
    expect(first).toHaveTextContent('3 Bytes');
    await user.click(within(first).getByRole('button', { name: 'Remove same-name.txt' }));
    expect(within(documents()).getAllByRole('listitem')).toHaveLength(1);
    expect(within(documents()).getByRole('listitem')).toHaveTextContent('5 Bytes');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Select a knowledge item to edit or create a new one');
    expect(server.callsTo('PUT /api/knowledge/heater')[0].body.attachments).toEqual([{ id: 'a2', name: 'same-name.txt', type: 'text/plain', size: 5 }]);
  });
});
