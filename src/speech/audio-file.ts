/**
 * What an uploaded recording is, from its bytes (never from the name or the declared type): the
 * container (WAV, WebM, Ogg, MP3, MP4/M4A, FLAC) and, where the file says, its length in seconds.
 *
 * Lengths: WAV from the data chunk and the byte rate; WebM from the Info duration or, where the
 * recorder wrote none (MediaRecorder never does), the last block's time; Ogg from the last page's
 * granule position (Opus at 48 kHz, Vorbis at its own rate). MP3, MP4 and FLAC: unknown (null).
 */

export type AudioFormat = 'wav' | 'webm' | 'ogg' | 'mp3' | 'mp4' | 'flac';

export interface AudioFile {
  format: AudioFormat;
  /** The file name extension and media type the provider is told (OpenAI picks the decoder by them). */
  extension: string;
  mimeType: string;
  /** Length in seconds, or null when the file does not say. */
  seconds: number | null;
}

const MIME: Record<AudioFormat, string> = { wav: 'audio/wav', webm: 'audio/webm', ogg: 'audio/ogg', mp3: 'audio/mpeg', mp4: 'audio/mp4', flac: 'audio/flac' };
const EXTENSION: Record<AudioFormat, string> = { wav: 'wav', webm: 'webm', ogg: 'ogg', mp3: 'mp3', mp4: 'm4a', flac: 'flac' };

/** The container of `bytes` by its signature, or undefined when it is no audio file this route takes. */
export function audioFormatOf(bytes: Uint8Array): AudioFormat | undefined {
  const ascii = (start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString('latin1');
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return 'webm';
  if (bytes.length >= 4 && ascii(0, 4) === 'OggS') return 'ogg';
  if (bytes.length >= 4 && ascii(0, 4) === 'fLaC') return 'flac';
  if (bytes.length >= 12 && ascii(4, 8) === 'ftyp') return 'mp4';
  if (bytes.length >= 3 && ascii(0, 3) === 'ID3') return 'mp3';
  // An MPEG audio frame header: 11 sync bits, layer III, a valid bitrate and sample rate.
  if (bytes.length >= 4 && bytes[0] === 0xff && (bytes[1] & 0xe6) === 0xe2 && (bytes[2] & 0xf0) !== 0xf0 && (bytes[2] & 0x0c) !== 0x0c) return 'mp3';
  return undefined;
}

/** The recording described, or undefined when `bytes` are not audio. */
export function readAudioFile(bytes: Uint8Array): AudioFile | undefined {
  const format = audioFormatOf(bytes);
  if (!format) return undefined;
  // A WAV must say how to play it: a format chunk and a data chunk (a RIFF header alone is no recording).
  if (format === 'wav' && wavSeconds(bytes) === null) return undefined;
  let seconds: number | null = null;
  try {
    seconds = format === 'wav' ? wavSeconds(bytes) : format === 'webm' ? webmSeconds(bytes) : format === 'ogg' ? oggSeconds(bytes) : null;
  } catch {
    seconds = null;
  }
  return { format, extension: EXTENSION[format], mimeType: MIME[format], seconds: seconds !== null && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) / 1000 : null };
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function wavSeconds(bytes: Uint8Array): number | null {
  if (bytes.length < 44) return null;
  const v = view(bytes);
  let byteRate = 0;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = Buffer.from(bytes.subarray(at, at + 4)).toString('latin1');
    const size = v.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 20 <= bytes.length) byteRate = v.getUint32(at + 16, true);
    if (id === 'data') {
      if (!byteRate) return null;
      // A streamed WAV may say 0 or 0xFFFFFFFF: the bytes that are there count.
      const length = size === 0 || size === 0xffffffff ? bytes.length - at - 8 : Math.min(size, bytes.length - at - 8);
      return length / byteRate;
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/** An EBML variable-length integer at `at`: its value (with the length marker removed unless `raw`) and length. */
function vint(bytes: Uint8Array, at: number, raw: boolean): { value: number; length: number; unknown: boolean } | undefined {
  const first = bytes[at];
  if (first === undefined || first === 0) return undefined;
  let length = 1;
  while (length <= 8 && !(first & (0x80 >> (length - 1)))) length += 1;
  if (length > 8 || at + length > bytes.length) return undefined;
  let value = raw ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[at + i];
    if (bytes[at + i] !== 0xff) allOnes = false;
  }
  return { value, length, unknown: !raw && allOnes };
}

const SEGMENT = 0x18538067;
const CLUSTER = 0x1f43b675;
const INFO = 0x1549a966;
const BLOCK_GROUP = 0xa0;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const CLUSTER_TIMECODE = 0xe7;
const SIMPLE_BLOCK = 0xa3;
const BLOCK = 0xa1;
/** Elements whose children are read (the others are skipped by their size). */
const MASTERS = new Set([SEGMENT, CLUSTER, INFO, BLOCK_GROUP]);

function uint(bytes: Uint8Array, at: number, size: number): number {
  let value = 0;
  for (let i = 0; i < size; i++) value = value * 256 + bytes[at + i];
  return value;
}

function webmSeconds(bytes: Uint8Array): number | null {
  const v = view(bytes);
  let scale = 1_000_000;
  let duration: number | null = null;
  let cluster = 0;
  let last = -1;
  // A flat walk: masters are entered (their size may be "unknown", as a live recorder writes it), the rest skipped.
  for (let at = 0; at < bytes.length; ) {
    const id = vint(bytes, at, true);
    if (!id) break;
    const size = vint(bytes, at + id.length, false);
    if (!size) break;
    const data = at + id.length + size.length;
    if (MASTERS.has(id.value) || id.value === 0x1a45dfa3) {
      if (id.value === 0x1a45dfa3) {
        at = data + size.value;
        continue;
      }
      at = data;
      continue;
    }
    if (size.unknown || data + size.value > bytes.length) break;
    if (id.value === TIMECODE_SCALE) scale = uint(bytes, data, size.value);
    else if (id.value === DURATION) duration = size.value === 4 ? v.getFloat32(data) : size.value === 8 ? v.getFloat64(data) : null;
    else if (id.value === CLUSTER_TIMECODE) cluster = uint(bytes, data, size.value);
    else if ((id.value === SIMPLE_BLOCK || id.value === BLOCK) && size.value >= 4) {
      const track = vint(bytes, data, false);
      if (track) last = Math.max(last, cluster + v.getInt16(data + track.length));
    }
    at = data + size.value;
  }
  if (duration !== null && duration > 0) return (duration * scale) / 1e9;
  // The last block's start plus one Opus frame (20 ms).
  return last >= 0 ? (last * scale) / 1e9 + 0.02 : null;
}

function oggSeconds(bytes: Uint8Array): number | null {
  const v = view(bytes);
  const segments = bytes[26] ?? 0;
  const body = 27 + segments;
  const head = Buffer.from(bytes.subarray(body, body + 8)).toString('latin1');
  let rate: number;
  if (head === 'OpusHead') rate = 48_000;
  else if (head.startsWith('\x01vorbis') && body + 16 <= bytes.length) rate = v.getUint32(body + 12, true);
  else return null;
  if (!rate) return null;
  for (let at = bytes.length - 27; at >= 0; at--) {
    if (bytes[at] === 0x4f && bytes[at + 1] === 0x67 && bytes[at + 2] === 0x67 && bytes[at + 3] === 0x53) {
      const granule = Number(v.getBigInt64(at + 6, true));
      if (granule >= 0) return granule / rate;
    }
  }
  return null;
}
