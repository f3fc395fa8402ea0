/**
 * POST /api/knowledge/import/file: real documents written by others (test/fixtures/documents,
 * see its README for their origin and licence) converted to Markdown items, and bad files
 * refused with a clear 4xx and nothing stored.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, Zip, ZipDeflate, zipSync } from 'fflate';
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

/** A fixture's ZIP parts changed by `change` (XML edited as text), zipped again. */
function edited(name: string, change: (files: Record<string, Uint8Array>, xml: (part: string, edit: (text: string) => string) => void) => void): Buffer {
  const files = unzipSync(fixture(name));
  change(files, (part, edit) => (files[part] = strToU8(edit(strFromU8(files[part])))));
  return Buffer.from(zipSync(files));
}

const SHEET = 'xl/worksheets/sheet1.xml';
/** The benchmark workbook with a formula (cached value), a formula without one, merged cells and a second, empty sheet. */
const oddWorkbook = () =>
  edited('zstd-benchmarks.xlsx', (files, xml) => {
    const sheet = strFromU8(files[SHEET]);
    xml(SHEET, (x) =>
      x
        .replace('<c r="B2" s="0" t="n"><v>2.887</v></c>', '<c r="B2" s="0"><f>1+1.887</f><v>2.887</v></c>')
        .replace('<c r="B3" s="0" t="n"><v>2.743</v></c>', '<c r="B3" s="0"><f>B2*2</f></c>')
        .replace('</sheetData>', '</sheetData><mergeCells count="1"><mergeCell ref="A12:D12"/></mergeCells>'),
    );
    files['xl/worksheets/sheet2.xml'] = strToU8(sheet.replace(/<sheetData>[\s\S]*<\/sheetData>/, '<sheetData/>'));
    xml('xl/workbook.xml', (x) => x.replace('</sheets>', '<sheet name="Empty" sheetId="2" state="visible" r:id="rId9"/></sheets>'));
    xml('xl/_rels/workbook.xml.rels', (x) => x.replace('</Relationships>', '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>'));
    xml('[Content_Types].xml', (x) => x.replace('</Types>', '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'));
  });
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
/** The README with an embedded picture (alt text "A tiny dot") before its first paragraph. */
const docxWithImage = () =>
  edited('zstd-README.docx', (files, xml) => {
    files['word/media/image1.png'] = PNG;
    xml('word/_rels/document.xml.rels', (x) => x.replace('</Relationships>', '<Relationship Id="rIdImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/></Relationships>'));
    const drawing =
      '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="9525" cy="9525"/><wp:docPr id="99" name="Picture 1" descr="A tiny dot"/>' +
      '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
      '<pic:nvPicPr><pic:cNvPr id="0" name="image1.png" descr="A tiny dot"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:embed="rIdImg"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>';
    xml('word/document.xml', (x) => x.replace('<w:body>', `<w:body>${drawing}`));
  });

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

  it('odd but valid files: formulas, merged cells and an empty sheet; an embedded image; HTML without <main>; CSV quoting', async () => {
    const sheet = await upload('odd-workbook.xlsx', oddWorkbook(), { preview: 'true' }).expect(201);
    // The empty sheet adds no item; a formula shows its cached value, one without a value an empty cell.
    expect(sheet.body.data.items).toHaveLength(1);
    const lines: string[] = sheet.body.data.items[0].content.split('\n');
    expect(lines).toContain('| zstd 1.5.1 -1 | 2.887 | 530 MB/s | 1700 MB/s |');
    expect(lines).toContain('| zlib 1.2.11 -1 |  | 95 MB/s | 400 MB/s |');
    const word = await upload('pictures.docx', docxWithImage(), { preview: 'true' }).expect(201);
    expect(word.body.data.items[0].content.startsWith('A tiny dot\n\n**Zstandard**')).toBe(true);
    expect(word.body.data.items[0].content).not.toMatch(/data:image|base64/);
    const page = await upload('hours.html', Buffer.from('<html><head><title>Opening hours</title></head><body><h1>Opening hours</h1><p>We are open from nine to five on weekdays and closed on public holidays.</p><ul><li>Monday to Friday: 9-17</li><li>Saturday: 10-14</li></ul></body></html>'), { preview: 'true' }).expect(201);
    expect(page.body.data.items[0]).toMatchObject({ title: 'Opening hours' });
    expect(page.body.data.items[0].content).toMatch(/^- +Saturday: 10-14$/m);
    const csv = await upload('odd.csv', Buffer.from('name,"quote ""inside""",note\n"multi\nline",2,"a | pipe"\n'), { preview: 'true' }).expect(201);
    expect(csv.body.data.items[0].content).toBe('| name | quote "inside" | note |\n| --- | --- | --- |\n| multi<br>line | 2 | a \\| pipe |');
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
      ['an HTML file of binary bytes', 'binary.html', () => Buffer.from([0, 1, 2, 255, 254, 0, 0, 7]), 400, /"binary\.html" holds binary data, not HTML text/],
      ['an XLSX whose only sheet is empty', 'empty.xlsx', () => edited('zstd-benchmarks.xlsx', (_f, xml) => xml(SHEET, (x) => x.replace(/<sheetData>[\s\S]*<\/sheetData>/, '<sheetData/>'))), 400, /holds no rows/],
      ['an XLSX whose sheet is missing', 'no-sheet.xlsx', () => edited('zstd-benchmarks.xlsx', (files) => delete files[SHEET]), 400, /could not be read as an Excel workbook/],
      ['an XLSX with a 3 MB cell', 'huge-cell.xlsx', () => edited('zstd-benchmarks.xlsx', (_f, xml) => xml('xl/sharedStrings.xml', (x) => x.replace('Compressor name', 'x'.repeat(3_000_000)))), 413, /converts to more than 1 MB of text/],
      ['a DOCX with no text, only its layout', 'blank.docx', () => edited('zstd-README.docx', (_f, xml) => xml('word/document.xml', (x) => x.replace(/<w:body>[\s\S]*<w:sectPr/, '<w:body><w:sectPr'))), 400, /holds no readable text/],
      ['a DOCX without its document part', 'hollow.docx', () => edited('zstd-README.docx', (files) => delete files['word/document.xml']), 400, /could not be read as a Word document/],
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
