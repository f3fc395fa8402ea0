/**
 * POST /api/knowledge/import/file: real documents written by others (test/fixtures/documents,
 * see its README for their origin and licence) converted to Markdown items, and bad files
 * refused with a clear 4xx and nothing stored.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Zip, ZipDeflate } from 'fflate';
import { KnowledgeItem } from '../src/knowledge/knowledge-item.entity';
import { startTestApp, TestApp } from './support/test-app';
import { adminAgent, AdminAgent } from './support/admin-session';

const FIXTURES = path.join(__dirname, 'fixtures', 'documents');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

/** A real DEFLATE zip whose one entry inflates to `bytes` zeros (streamed: little memory here). */
function zipBomb(entry: string, bytes: number): Buffer {
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    parts.push(chunk);
  });
  const file = new ZipDeflate(entry, { level: 1 });
  zip.add(file);
  const block = new Uint8Array(1024 * 1024);
  for (let done = 0; done < bytes; done += block.length) file.push(block, done + block.length >= bytes);
  zip.end();
  return Buffer.concat(parts);
}

describe('importing knowledge from files', () => {
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const itemCount = () => t.dataSource.getRepository(KnowledgeItem).count();
  const upload = (name: string, data: Buffer, query: Record<string, string> = {}) =>
    admin.post('/api/knowledge/import/file').query({ vertical: 'customer-service', ...query }).attach('file', data, name);

  it('a Word document becomes one Markdown item with its headings, table and links, stored and searchable', async () => {
    const res = await upload('zstd-README.docx', fixture('zstd-README.docx')).expect(201);
    const data = res.body.data;
    expect(data).toMatchObject({ fileName: 'zstd-README.docx', format: 'docx', stored: true });
    expect(data.items).toHaveLength(1);
    const [item] = data.items;
    expect(item).toMatchObject({ title: 'Zstd README', category: 'Uploaded', vertical: 'customer-service', tags: ['uploaded', 'document', 'docx'] });
    expect(item.content).toContain('## Benchmarks');
    expect(item.content).toContain('| Compressor name | Ratio | Compression | Decompress. |');
    expect(item.content).toMatch(/^\| \*\*zstd 1\.5\.1 -1\*\* \| 2\.887 \| 530 MB\/s \| 1700 MB\/s \|$/m);
    expect(item.content).toMatch(/^- /m);
    const stored = await admin.get(`/api/knowledge/${item.id}`).expect(200);
    expect(stored.body.data.content).toBe(item.content);
    const hits = await admin.get('/api/knowledge').query({ search: 'Silesia compression corpus' }).expect(200);
    expect(hits.body.data.map((i: { id: string }) => i.id)).toContain(item.id);
  });

  it('an Excel workbook becomes a Markdown table, header first, every row kept', async () => {
    const res = await upload('zstd-benchmarks.xlsx', fixture('zstd-benchmarks.xlsx'), { preview: 'true' }).expect(201);
    expect(res.body.data).toMatchObject({ format: 'xlsx', stored: false });
    const content: string = res.body.data.items[0].content;
    const lines = content.split('\n');
    expect(lines[0]).toBe('| Compressor name | Ratio | Compression | Decompress. |');
    expect(lines[1]).toBe('| --- | --- | --- | --- |');
    expect(lines).toContain('| lz4 1.9.3 | 2.101 | 740 MB/s | 4500 MB/s |');
    expect(lines).toHaveLength(13);
    expect(res.body.data.items[0].id).toBeUndefined();
  });

  it('a question answered from a table quotes the table: the header and the row, as a Markdown table', async () => {
    // The DOCX above is stored; its benchmark table holds the answer.
    const { default: request } = await import('supertest');
    const res = await request(t.url).post('/interact').send({ vertical: 'customer-service', query: 'What is the compression ratio and decompression speed of lz4 1.9.3?', preferredLanguage: 'English', userId: 'table-user' }).expect(200);
    const data = res.body.data as { response: string; answered: boolean; sources: { title: string }[] };
    expect(data.answered).toBe(true);
    expect(data.sources[0].title).toBe('Zstd README');
    const lines = data.response.split('\n');
    const header = lines.findIndex((line) => line.startsWith('| Compressor name | Ratio | Compression | Decompress. |'));
    expect(header).toBeGreaterThanOrEqual(0);
    expect(lines[header + 1]).toMatch(/^\| -+ \| -+ \| -+ \| -+ \|$/);
    expect(lines.slice(header + 2)).toContain('| [lz4](https://lz4.github.io/lz4/) 1.9.3 | 2.101 | 740 MB/s | 4500 MB/s |');
  });

  it('a Markdown file keeps its Markdown; an HTML page keeps its main content and title, without scripts or navigation', async () => {
    const md = await upload('zstd-README.md', fixture('zstd-README.md'), { preview: 'true' }).expect(201);
    expect(md.body.data.format).toBe('markdown');
    expect(md.body.data.items[0].content).toContain('| Compressor name         | Ratio | Compression| Decompress.|');
    const html = await upload('git-stash.html', fixture('git-stash.html'), { preview: 'true', category: 'Git manual', tags: 'git,manual' }).expect(201);
    const [page] = html.body.data.items;
    expect(page).toMatchObject({ title: 'git-stash(1)', category: 'Git manual', tags: ['git', 'manual'] });
    expect(page.content).toMatch(/^## DESCRIPTION$/m);
    expect(page.content).toContain('Use `git stash` when you want to record the current state');
    expect(page.content).not.toMatch(/<script|function\s*\(|addEventListener/);
  });

  it('a CSV of more rows than a group holds becomes one item per 100 rows, each with the header', async () => {
    const rows = ['SKU,Name,Price', ...Array.from({ length: 250 }, (_, i) => `S-${i + 1},"Gift box, size ${i + 1}",${(i + 1) * 2}.00`)];
    const res = await upload('price-list.csv', Buffer.from(rows.join('\r\n')), { preview: 'true' }).expect(201);
    const items = res.body.data.items;
    expect(items.map((i: { title: string }) => i.title)).toEqual(['Price list (rows 1–100)', 'Price list (rows 101–200)', 'Price list (rows 201–250)']);
    for (const item of items) expect(item.content.startsWith('| SKU | Name | Price |\n| --- | --- | --- |\n')).toBe(true);
    expect(items[2].content).toContain('| S-250 | Gift box, size 250 | 500.00 |');
  });

  describe('refuses, storing nothing', () => {
    it.each([
      ['a DOCX zip bomb (a document that unpacks to 120 MB)', 'bomb.docx', () => zipBomb('word/document.xml', 120 * 1024 * 1024), 413, /possible zip bomb/],
      ['an XLSX cut off halfway', 'truncated.xlsx', () => fixture('zstd-benchmarks.xlsx').subarray(0, 2500), 400, /damaged or truncated|could not be read/],
      ['an HTML file that is only scripts and styles', 'tracking.html', () => Buffer.from('<html><head><style>body{color:red}</style><script>document.write("hello there, this is a long script text")</script></head><body><script>track()</script></body></html>'), 400, /holds no readable text/],
      ['a legacy Word file', 'letter.doc', () => Buffer.from('\xd0\xcf\x11\xe0 not really', 'latin1'), 415, /Word 97-2003 \(\.doc\) files are not yet supported.*Supported formats: TXT, JSON, PDF, Word \(\.docx\), Markdown, HTML, CSV and Excel \(\.xlsx\)/],
      ['a legacy Excel file', 'budget.xls', () => Buffer.from('\xd0\xcf\x11\xe0 not really', 'latin1'), 415, /Excel 97-2003 \(\.xls\) files are not yet supported/],
      ['a file of an unknown type', 'tool.exe', () => Buffer.from('MZ'), 415, /not a supported file type/],
      ['a DOCX that is not a zip', 'fake.docx', () => Buffer.from('just text'), 400, /not a valid DOCX file/],
      ['a CSV of more than 5,000 rows', 'huge.csv', () => Buffer.from(['a,b', ...Array.from({ length: 5001 }, (_, i) => `${i},x`)].join('\n')), 413, /5,001 rows; at most 5,000/],
    ])('%s', async (_label, name, make, status, message) => {
      const before = await itemCount();
      const res = await upload(name, make()).expect(status);
      expect(res.body.success).toBe(false);
      expect(res.body.error.message).toMatch(message);
      expect(await itemCount()).toBe(before);
    });

    it('a 50 MB file, with 413 before it is read', async () => {
      const before = await itemCount();
      const res = await upload('manual.txt', Buffer.alloc(50 * 1024 * 1024, 'a')).expect(413);
      expect(res.body.error.message).toBe('The file is larger than 20 MB, the most one import takes');
      expect(await itemCount()).toBe(before);
    });

    it('a body that is not multipart, and a missing vertical', async () => {
      const json = await admin.post('/api/knowledge/import/file').query({ vertical: 'hr' }).send({ file: 'x' }).expect(415);
      expect(json.body.error.message).toMatch(/multipart\/form-data/);
      const noVertical = await admin.post('/api/knowledge/import/file').attach('file', Buffer.from('hello'), 'a.txt').expect(400);
      expect(noVertical.body.error.message).toBe('Vertical is required');
    });

    it('a conversion larger than 1 MB of text', async () => {
      const before = await itemCount();
      const res = await upload('long.md', Buffer.from('word '.repeat(260 * 1024))).expect(413);
      expect(res.body.error.message).toMatch(/converts to more than 1 MB of text/);
      expect(await itemCount()).toBe(before);
    });
  });

  it('asks for a signed-in admin', async () => {
    const { default: request } = await import('supertest');
    await request(t.url).post('/api/knowledge/import/file').query({ vertical: 'hr' }).attach('file', Buffer.from('x'), 'a.txt').expect(401);
  });

});
