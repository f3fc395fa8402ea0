/**
 * File import benchmark: DOCX and XLSX conversion times (`convertFile`, what
 * POST /api/knowledge/import/file runs: zip guard, mammoth or read-excel-file, then Markdown).
 *
 *   npx ts-node --transpile-only bench/import.ts
 *
 * On the real fixtures (test/fixtures/documents, made by LibreOffice from Debian's zstd README)
 * and on larger files generated from them, so they keep the fixtures' structure:
 *  - a DOCX of about 200 pages: the README's body (headings, lists, tables, code) repeated 50
 *    times in the same document (the fixture is about 4 pages);
 *  - an XLSX of 5,000 data rows (the row cap): the benchmark sheet's rows repeated with the
 *    numbers varied, in the same workbook (styles, shared strings as LibreOffice wrote them).
 * Prints, per file: size, parts (items), median ms over BENCH_IMPORT_RUNS runs (default 5, after
 * one warm-up) and ms per MB of file. Informative only (nothing is asserted).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { convertFile } from '../src/ingestion/convert/convert-file';

const RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 5);
const FIXTURES = path.join(__dirname, '..', 'test', 'fixtures', 'documents');

/** The fixture's document body repeated `times` times (the section properties kept once, at the end). */
export function largeDocx(fixture: Uint8Array, times: number): Uint8Array {
  const files = unzipSync(fixture);
  const xml = strFromU8(files['word/document.xml']);
  const open = xml.indexOf('<w:body>') + '<w:body>'.length;
  const sect = xml.lastIndexOf('<w:sectPr');
  const body = xml.slice(open, sect);
  files['word/document.xml'] = strToU8(xml.slice(0, open) + body.repeat(times) + xml.slice(sect));
  return zipSync(files, { level: 6 });
}

/** The fixture's sheet with `rows` data rows: its data rows cycled, the ratio column varied. */
export function largeXlsx(fixture: Uint8Array, rows: number): Uint8Array {
  const files = unzipSync(fixture);
  const xml = strFromU8(files['xl/worksheets/sheet1.xml']);
  const data = xml.slice(xml.indexOf('<sheetData>') + '<sheetData>'.length, xml.indexOf('</sheetData>'));
  const sourceRows = data.match(/<row [\s\S]*?<\/row>/g) ?? [];
  const [header, ...body] = sourceRows;
  const out = [header];
  for (let r = 0; r < rows; r++) {
    const n = r + 2;
    const row = body[r % body.length]
      .replace(/<row r="\d+"/, `<row r="${n}"`)
      .replace(/ r="([A-Z]+)\d+"/g, ` r="$1${n}"`)
      .replace(/(<c r="B\d+"[^>]*t="n"><v>)([\d.]+)/, (_m, p: string, v: string) => `${p}${(Number(v) + (r % 97) / 1000).toFixed(3)}`);
    out.push(row);
  }
  const sheet = xml.slice(0, xml.indexOf('<sheetData>')) + `<sheetData>${out.join('')}</sheetData>` + xml.slice(xml.indexOf('</sheetData>') + '</sheetData>'.length);
  files['xl/worksheets/sheet1.xml'] = strToU8(sheet.replace(/<dimension ref="[^"]*"\/>/, `<dimension ref="A1:D${rows + 1}"/>`));
  return zipSync(files, { level: 6 });
}

async function measure(name: string, data: Uint8Array): Promise<string> {
  const first = await convertFile(name, data);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await convertFile(name, data);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const mb = data.byteLength / (1024 * 1024);
  const chars = first.parts.reduce((n, p) => n + p.content.length, 0);
  return `| ${name} | ${(data.byteLength / 1024).toFixed(1)} KB | ${first.parts.length} | ${(chars / 1024).toFixed(0)} K | ${median.toFixed(1)} | ${(median / mb).toFixed(0)} |`;
}

async function main(): Promise<void> {
  const docx = fs.readFileSync(path.join(FIXTURES, 'zstd-README.docx'));
  const xlsx = fs.readFileSync(path.join(FIXTURES, 'zstd-benchmarks.xlsx'));
  const lines = [
    `# File import conversion (convertFile, median of ${RUNS} runs after a warm-up)`,
    '',
    '| file | size | items | Markdown chars | ms per file | ms per MB of file |',
    '|---|---:|---:|---:|---:|---:|',
    await measure('zstd-README.docx', docx),
    await measure('zstd-README-x50.docx', largeDocx(docx, 50)),
    await measure('zstd-benchmarks.xlsx', xlsx),
    await measure('zstd-benchmarks-5000-rows.xlsx', largeXlsx(xlsx, 5000)),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
