/**
 * The Knowledge Base tab in Chromium against the built client and the real server, signed in as a
 * real admin: quick upload of a real 3-page PDF (printed by Chromium in the test) is parsed in the
 * browser by the bundled PDF.js and becomes an item holding its last page's text; a legacy .doc and an
 * empty .txt get their alerts; an item is created, edited and deleted through the editor; a
 * PNG and a TXT are attached and previewed; another console's change shows up live.
 * Screenshots go to test-artifacts/knowledge-*.png.
 */
import type { Browser, Page } from 'playwright-core';
import { eventually, startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';

const EMAIL = 'knowledge-browser@example.com';
const PASSWORD = 'browser admin password';

interface ApiItem {
  id: string;
  title: string;
  content: string;
  category: string;
  vertical: string;
  tags: string[];
  attachments: Array<{ id: string; name: string; type: string; size: number; content?: string }>;
}

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/admin`);
  await page.getByLabel('Email address').fill(EMAIL);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: /Login with Password/ }).click();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
}

/** A PDF of three pages with distinct text, printed by Chromium. */
async function printThreePagePdf(browser: Browser): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    await page.setContent(`<!doctype html><html><head><style>
      body { font: 16px Helvetica, Arial, sans-serif; }
      section { page-break-after: always; }
      section:last-child { page-break-after: auto; }
    </style></head><body>
      <section><h1>Employee handbook</h1><p>Alpha page: welcome aboard and where to find the coffee machine.</p></section>
      <section><h1>Leave</h1><p>Bravo page: every employee gets twenty five vacation days a year.</p></section>
      <section><h1>Expenses</h1><p>Charlie page: submit travel receipts within thirty days to be reimbursed.</p></section>
    </body></html>`);
    return await page.pdf({ format: 'A4' });
  } finally {
    await page.close();
  }
}

/** A real PNG (a small rendered card), 200 x 120. */
async function renderPng(browser: Browser): Promise<Buffer> {
  const page = await browser.newPage({ viewport: { width: 200, height: 120 } });
  try {
    await page.setContent('<body style="margin:0"><div style="width:200px;height:120px;background:#2563eb;color:#fff;font:bold 22px sans-serif;display:flex;align-items:center;justify-content:center">Wiring diagram</div></body>');
    return await page.screenshot({ type: 'png' });
  } finally {
    await page.close();
  }
}

describeBrowser('Knowledge Base tab in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const alerts: string[] = [];

  /** Waits for the next notice after `seen` ones and returns its text. */
  const alertAfter = (seen: number) => eventually(() => alerts[seen], 20000, `alert #${seen + 1}`);

  const listItems = async (): Promise<ApiItem[]> => (await (await page.request.get(`${t.url}/api/knowledge`)).json()).data;
  const itemTitled = async (title: string): Promise<ApiItem | undefined> => (await listItems()).find((i) => i.title === title);
  const fullItem = async (id: string): Promise<ApiItem> => (await (await page.request.get(`${t.url}/api/knowledge/${id}`)).json()).data;

  const quickUpload = () => page.getByRole('region', { name: 'Quick Upload Document' }).getByLabel('Upload a TXT, JSON, PDF, DOCX, Markdown, HTML, CSV or XLSX document');
  const list = () => page.getByRole('list', { name: 'Knowledge Items' });
  const editorHeading = (name: 'New Knowledge Item' | 'Edit Knowledge Item') => page.getByRole('heading', { name });
  const placeholder = () => page.getByText('Select a knowledge item to edit or create a new one');

  beforeAll(async () => {
    assertClientBuilt();
    t = await startTestApp({ adminEmail: EMAIL, adminPassword: PASSWORD, seedSampleKnowledge: false, signInIpLimit: 1000 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Alerts are in-page notices: each one shown is recorded; a native dialog would be a regression.
    page.on('dialog', (dialog) => {
      alerts.push(`native ${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.exposeFunction('recordNotice', (text: string) => alerts.push(text));
    await page.addInitScript({
      content: `(() => {
        const seen = new WeakSet();
        new MutationObserver(() => {
          for (const el of document.querySelectorAll('.notice-text')) {
            if (seen.has(el)) continue;
            seen.add(el);
            window.recordNotice(el.textContent || '');
          }
        }).observe(document, { subtree: true, childList: true });
      })();`,
    });
    await signIn(page, t.url);
    await placeholder().waitFor();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('quick upload of a real 3-page PDF parses it in the browser (bundled worker) into an item with its last page', async () => {
    const pdf = await printThreePagePdf(browser);
    const workerRequests: string[] = [];
    page.on('request', (r) => {
      if (/pdf\.worker/.test(r.url())) workerRequests.push(r.url());
    });
    await page.getByLabel('Filter by vertical').selectOption({ label: 'Employee Support' });
    const seen = alerts.length;
    await quickUpload().setInputFiles({ name: 'Employee Handbook.PDF', mimeType: 'application/pdf', buffer: pdf });
    const review = page.getByRole('dialog', { name: 'Review upload: Employee Handbook.PDF' });
    await review.waitFor();
    expect(await review.getByLabel('Title').inputValue()).toBe('Employee Handbook');
    expect(await review.getByLabel('Vertical').inputValue()).toBe('hr');
    await review.getByRole('button', { name: 'Create item' }).click();
    expect(await alertAfter(seen)).toBe('Successfully uploaded and parsed PDF: Employee Handbook.PDF');

    const item = await eventually(() => itemTitled('Employee Handbook'), 5000, 'the uploaded item');
    expect(item).toMatchObject({ category: 'Uploaded', vertical: 'hr', tags: ['uploaded', 'document', 'pdf'], attachments: [] });
    const pages = item.content.split('\n\n');
    expect(pages).toHaveLength(3);
    expect(pages[0]).toContain('Alpha page');
    expect(pages[1]).toContain('twenty five vacation days');
    expect(pages[2]).toContain('Charlie page: submit travel receipts within thirty days');
    // The worker came from our own build, not a CDN.
    expect(workerRequests.length).toBeGreaterThan(0);
    for (const url of workerRequests) expect(url.startsWith(`${t.url}/assets/`)).toBe(true);

    await list().getByRole('button', { name: /Employee Handbook/ }).waitFor();
    await page.getByLabel('Filter by vertical').selectOption({ label: 'All Verticals' });
    await screenshot(page, 'knowledge-list');
  });

  it("a PDF printed with the browser's header and footer (date, title, address, 1/1) becomes an item without them, ligatures joined", async () => {
    const printer = await browser.newPage();
    await printer.setContent('<!doctype html><html><head><title>Records policy</title><style>body{font:16px "DejaVu Serif", serif}</style></head><body><h1>Records policy</h1><p>The office keeps every signed file for five years.</p></body></html>');
    const pdf = await printer.pdf({ format: 'A4', displayHeaderFooter: true, margin: { top: '60px', bottom: '60px' } });
    await printer.close();
    const seen = alerts.length;
    await quickUpload().setInputFiles({ name: 'records_policy.pdf', mimeType: 'application/pdf', buffer: pdf });
    const review = page.getByRole('dialog', { name: 'Review upload: records_policy.pdf' });
    await review.waitFor();
    expect(await review.getByLabel('Title').inputValue()).toBe('Records policy');
    await review.getByLabel('Category').fill('Policies');
    await screenshot(page, 'knowledge-quick-upload-review');
    await review.getByRole('button', { name: 'Create item' }).click();
    expect(await alertAfter(seen)).toBe('Successfully uploaded and parsed PDF: records_policy.pdf');
    const item = await eventually(() => itemTitled('Records policy'), 5000, 'the uploaded item');
    expect(item.category).toBe('Policies');
    expect(item.content).toBe('Records policy\nThe office keeps every signed file for five years.');
    expect(item.content).not.toMatch(/\d{1,2}\/\d{1,2}\/\d{2},|about:blank|1\/1/);
  });

  it('quick upload of a JSON array creates one item per element with their fields', async () => {
    const seen = alerts.length;
    const json = JSON.stringify([
      { title: 'Gym discount', content: 'Staff get 30% off at the partner gym.', vertical: 'hr', category: 'Perks', tags: ['gym', 'perks'] },
      { question: 'Can I bring a dog to the office?', answer: 'Only on Fridays.', category: 'Office' },
    ]);
    await quickUpload().setInputFiles({ name: 'perks.json', mimeType: 'application/json', buffer: Buffer.from(json) });
    const review = page.getByRole('dialog', { name: 'Review upload: perks.json' });
    await review.waitFor();
    expect(await review.getByRole('row').count()).toBe(3);
    await review.getByLabel('Vertical').selectOption({ label: 'Employee Support' });
    await screenshot(page, 'knowledge-quick-upload-json');
    await review.getByRole('button', { name: 'Create 2 items' }).click();
    expect(await alertAfter(seen)).toBe('Successfully uploaded: perks.json\n2 items created.');
    const gym = await eventually(() => itemTitled('Gym discount'), 5000, 'the first item');
    expect(gym).toMatchObject({ content: 'Staff get 30% off at the partner gym.', vertical: 'hr', category: 'Perks', tags: ['gym', 'perks'] });
    const dog = await eventually(() => itemTitled('Can I bring a dog to the office?'), 5000, 'the second item');
    expect(dog).toMatchObject({ content: 'Only on Fridays.', vertical: 'hr', category: 'Office', tags: ['uploaded', 'document'] });
    expect(dog.content).not.toContain('{');
  });

  it('a legacy .doc dropped on quick upload shows the not-yet-supported alert; an empty .txt the empty-file alert', async () => {
    let seen = alerts.length;
    // A drop carries any file (the picker's accept list does not apply), as dragging from a desktop does.
    const dataTransfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['fake word 97 file'], 'Quarterly report.doc', { type: 'application/msword' }));
      return transfer;
    })()`);
    await page.getByRole('region', { name: 'Quick Upload Document' }).getByText('Drop a file here or click to choose').dispatchEvent('drop', { dataTransfer });
    const docx = await alertAfter(seen);
    expect(docx).toMatch(/^Legacy Word files \(\.doc\) are not yet supported\./);
    expect(docx).toContain('Save the file as .docx and upload that');
    expect(docx).toContain('Copy and paste the content');
    expect(docx).toContain('Convert the file to plain text (.txt)');
    expect(docx).toContain('Supported formats: TXT, JSON, PDF, DOCX, Markdown, HTML, CSV, XLSX');

    seen = alerts.length;
    await quickUpload().setInputFiles({ name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.from('  \n\t ') });
    expect(await alertAfter(seen)).toBe('The file appears to be empty or could not be read.');
    // Read, the notices are dismissed (they would sit over the editor's lower right corner).
    const dismiss = page.getByRole('region', { name: 'Notifications' }).getByRole('button', { name: 'Dismiss' });
    while ((await dismiss.count()) > 0) await dismiss.first().click();
    expect(await itemTitled('empty')).toBeUndefined();
    expect(await itemTitled('Quarterly report')).toBeUndefined();
  });

  it('creates, edits and deletes an item through the editor', async () => {
    await page.getByRole('button', { name: 'New knowledge item' }).click();
    await editorHeading('New Knowledge Item').waitFor();
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await page.getByLabel('Title').fill('Parental leave');
    await page.getByLabel('Content').fill('Parents get sixteen weeks of paid leave, to be taken within a year of the birth or adoption.');
    await page.getByLabel('Vertical', { exact: true }).selectOption({ label: 'Employee Support' });
    await page.getByLabel('Category').fill('Benefits');
    await page.getByLabel('Tags').fill(' leave, , parents ,benefits ');
    await screenshot(page, 'knowledge-editor-new');
    await page.getByRole('button', { name: 'Save' }).click();
    await placeholder().waitFor();
    const created = await eventually(() => itemTitled('Parental leave'), 5000, 'the created item');
    expect(created).toMatchObject({ category: 'Benefits', vertical: 'hr', tags: ['leave', 'parents', 'benefits'] });

    await list().getByRole('button', { name: /Parental leave/ }).click();
    await editorHeading('Edit Knowledge Item').waitFor();
    expect(await page.getByLabel('Tags').inputValue()).toBe('leave, parents, benefits');
    await page.getByLabel('Title').fill('Parental leave policy');
    await page.getByRole('button', { name: 'Save' }).click();
    await placeholder().waitFor();
    await list().getByRole('button', { name: /Parental leave policy/ }).waitFor();
    expect((await fullItem(created.id)).title).toBe('Parental leave policy');

    // Delete asks first (in the page); Undo within the window restores the item, untouched on the server.
    await list().getByRole('button', { name: /Parental leave policy/ }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete knowledge item?' });
    await confirm.waitFor();
    await screenshot(page, 'knowledge-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await placeholder().waitFor();
    await list().getByRole('button', { name: /Parental leave/ }).waitFor({ state: 'detached' });
    const notices = page.getByRole('region', { name: 'Notifications' });
    await notices.getByText('Deleted "Parental leave policy".').waitFor();
    await screenshot(page, 'knowledge-delete-undo');
    await notices.getByRole('button', { name: 'Undo' }).click();
    await list().getByRole('button', { name: /Parental leave policy/ }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 7000));
    expect((await page.request.get(`${t.url}/api/knowledge/${created.id}`)).status()).toBe(200);
    await list().getByRole('button', { name: /Parental leave policy/ }).waitFor();

    // Without Undo, the server deletes it once the window (6 s) has passed.
    await list().getByRole('button', { name: /Parental leave policy/ }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await list().getByRole('button', { name: /Parental leave/ }).waitFor({ state: 'detached' });
    expect((await page.request.get(`${t.url}/api/knowledge/${created.id}`)).status()).toBe(200);
    await eventually(async () => (await page.request.get(`${t.url}/api/knowledge/${created.id}`)).status() === 404 || undefined, 15000, 'the delete after the undo window');
    expect(alerts.filter((a) => a.startsWith('native'))).toEqual([]);
  }, 60000);

  it('a Legal item gets a jurisdiction and a state in the editor, shows them as a badge, and the Legal filter narrows to them', async () => {
    await page.getByRole('button', { name: 'New knowledge item' }).click();
    await editorHeading('New Knowledge Item').waitFor();
    await page.getByLabel('Title').fill('Security deposits in California');
    await page.getByLabel('Content').fill('A landlord may ask for at most one month of rent as a security deposit.');
    await page.getByLabel('Vertical', { exact: true }).selectOption({ label: 'Legal Advisor' });
    await page.getByLabel('Jurisdiction', { exact: true }).selectOption('US');
    await page.getByLabel('State', { exact: true }).selectOption('California');
    await screenshot(page, 'knowledge-editor-legal');
    await page.getByRole('button', { name: 'Save' }).click();
    await placeholder().waitFor();
    const created = await eventually(() => itemTitled('Security deposits in California'), 5000, 'the legal item');
    expect(created).toMatchObject({ vertical: 'legal', jurisdiction: 'US', subRegion: 'California' });
    await list().getByRole('button', { name: /Security deposits in California/ }).getByText('US · California').waitFor();

    await page.getByLabel('Filter by vertical').selectOption({ label: 'Legal Advisor' });
    await page.getByLabel('Filter by jurisdiction').selectOption('none');
    await list().getByRole('button', { name: /Security deposits in California/ }).waitFor({ state: 'detached' });
    await page.getByLabel('Filter by jurisdiction').selectOption('US');
    await page.getByLabel('Filter by sub-region').selectOption('California');
    await list().getByRole('button', { name: /Security deposits in California/ }).waitFor();
    await screenshot(page, 'knowledge-list-legal');
    await page.getByLabel('Filter by vertical').selectOption({ label: 'All Verticals' });
  });

  it('attaches a PNG and a TXT, previews both, saves them, and previews the stored text after reopening', async () => {
    const png = await renderPng(browser);
    const text = 'Step 1: switch off the mains.\nStep 2: connect the brown wire to L.';
    await page.getByRole('button', { name: 'New knowledge item' }).click();
    await page.getByLabel('Title').fill('Installing the heater');
    await page.getByLabel('Content').fill('How to wire the Zentrix wall heater.');
    await page.getByLabel('Add supporting documents').setInputFiles([
      { name: 'wiring.png', mimeType: 'image/png', buffer: png },
      { name: 'steps.txt', mimeType: 'text/plain', buffer: Buffer.from(text) },
    ]);
    const documents = page.getByRole('list', { name: 'Supporting Documents' });
    await documents.getByRole('listitem', { name: 'wiring.png' }).waitFor();
    await documents.getByRole('listitem', { name: 'steps.txt' }).waitFor();
    expect(await documents.getByRole('listitem', { name: 'steps.txt' }).textContent()).toContain(`${Buffer.byteLength(text)} Bytes`);
    const pngSize = png.length < 1024 ? `${png.length} Bytes` : `${Math.round((png.length / 1024) * 100) / 100} KB`;
    expect(await documents.getByRole('listitem', { name: 'wiring.png' }).textContent()).toContain(pngSize);
    await screenshot(page, 'knowledge-editor-attachments');

    await page.getByRole('button', { name: 'Preview steps.txt' }).click();
    const dialog = page.getByRole('dialog', { name: 'steps.txt' });
    await dialog.waitFor();
    expect(await dialog.locator('pre').textContent()).toBe(text);
    await screenshot(page, 'knowledge-preview-text', { fullPage: false });
    await dialog.getByRole('button', { name: 'Close preview' }).click();
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Preview wiring.png' }).click();
    const image = page.getByRole('dialog', { name: 'wiring.png' }).getByRole('img', { name: 'wiring.png' });
    await image.waitFor();
    await eventually(
      () =>
        image.evaluate((img) => {
          const element = img as unknown as { complete: boolean; naturalWidth: number };
          return element.complete && element.naturalWidth === 200;
        }),
      5000,
      'the image to decode',
    );
    await screenshot(page, 'knowledge-preview-image', { fullPage: false });
    await page.keyboard.press('Escape');
    await image.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Save' }).click();
    await placeholder().waitFor();
    const saved = await eventually(() => itemTitled('Installing the heater'), 5000, 'the saved item');
    const full = await fullItem(saved.id);
    expect(full.attachments.map((a) => [a.name, a.type, a.size])).toEqual([
      ['wiring.png', 'image/png', png.length],
      ['steps.txt', 'text/plain', Buffer.byteLength(text)],
    ]);
    expect(full.attachments[0].content).toBe(`data:image/png;base64,${png.toString('base64')}`);

    // The list row shows the paperclip; reopened, the stored text (fetched with the item) previews.
    const row = list().getByRole('button', { name: /Installing the heater/ });
    await row.getByRole('img', { name: 'Has supporting documents' }).waitFor();
    await row.click();
    await editorHeading('Edit Knowledge Item').waitFor();
    await screenshot(page, 'knowledge-editor-edit');
    await page.getByRole('button', { name: 'Preview steps.txt' }).click();
    expect(await page.getByRole('dialog', { name: 'steps.txt' }).locator('pre').textContent()).toBe(text);
    await page.keyboard.press('Escape');
    // Removing one attachment and saving keeps the other (sent back by id, without content).
    await page.getByRole('button', { name: 'Remove wiring.png' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await placeholder().waitFor();
    const after = await eventually(async () => {
      const item = await fullItem(saved.id);
      return item.attachments.length === 1 ? item : undefined;
    }, 5000, 'the attachment removal');
    expect(after.attachments[0]).toMatchObject({ name: 'steps.txt', content: text });
  }, 60000);

  it("another console's change shows up in the list without a reload (knowledge:changed)", async () => {
    const other = await browser.newContext();
    try {
      const otherPage = await other.newPage();
      await signIn(otherPage, t.url);
      const res = await otherPage.request.post(`${t.url}/api/knowledge`, {
        data: { title: 'Added from another console', content: 'Pushed over the admin socket.', category: '', vertical: 'sales', tags: [], attachments: [] },
      });
      expect(res.status()).toBe(201);
      await list().getByRole('button', { name: /Added from another console/ }).waitFor({ timeout: 5000 });
      await screenshot(page, 'knowledge-list-live');
      // The list scrolls within about 600px.
      const style = await list().evaluate((el) => {
        // Runs in the page (this tsconfig has no DOM types).
        const { maxHeight, overflowY } = (globalThis as unknown as { getComputedStyle(e: unknown): { maxHeight: string; overflowY: string } }).getComputedStyle(el);
        return [maxHeight, overflowY];
      });
      expect(style).toEqual(['600px', 'auto']);
    } finally {
      await other.close();
    }
  });
});
