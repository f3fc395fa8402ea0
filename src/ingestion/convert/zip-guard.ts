/**
 * DOCX and XLSX files are ZIP archives, and a small archive can inflate to gigabytes (a "zip
 * bomb"). Before a parser sees one, it is unpacked here with every entry's output bounded by the
 * size its directory declares, the declared sizes are summed against a cap, and the entries are
 * packed again uncompressed: the parser then reads an archive whose sizes are honest and whose
 * total is known, whatever the original claimed.
 */
import { unzipSync, zipSync, type Unzipped } from 'fflate';
import { ImportError } from '../ingestion.errors';

export interface ZipLimits {
  /** Total decompressed bytes of all entries. */
  maxBytes: number;
  /** Entries in the archive. */
  maxEntries: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxBytes: 100 * 1024 * 1024, maxEntries: 5000 };

const MB = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** The archive's entries, decompressed within `limits`; a 413 or 400 naming the problem otherwise. */
export function unpackZip(data: Uint8Array, fileName: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Unzipped {
  let total = 0;
  let entries = 0;
  let refusal: ImportError | undefined;
  let files: Unzipped;
  try {
    files = unzipSync(data, {
      filter: (entry) => {
        entries += 1;
        total += entry.originalSize;
        if (entries > limits.maxEntries) refusal ??= ImportError.tooLarge(`"${fileName}" holds more than ${limits.maxEntries} files inside; it is refused as a possible zip bomb`);
        if (total > limits.maxBytes) refusal ??= ImportError.tooLarge(`"${fileName}" would unpack to more than ${MB(limits.maxBytes)}; it is refused as a possible zip bomb`);
        return refusal === undefined;
      },
    });
  } catch {
    throw refusal ?? ImportError.invalid(`"${fileName}" is not a valid ${extensionName(fileName)} file: the archive is damaged or truncated`);
  }
  if (refusal) throw refusal;
  return files;
}

/** unpackZip, packed again without compression: what the DOCX and XLSX parsers are given. */
export function safeZip(data: Uint8Array, fileName: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Buffer {
  const files = unpackZip(data, fileName, limits);
  if (Object.keys(files).length === 0) throw ImportError.invalid(`"${fileName}" is empty`);
  return Buffer.from(zipSync(files, { level: 0 }));
}

function extensionName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(dot + 1).toUpperCase() : 'ZIP';
}
