import { audioFormatOf, readAudioFile } from './audio-file';

/** An Ogg page: capture pattern, version, flags, granule, serial, sequence, checksum (unchecked), one segment of `body`. */
function oggPage(granule: bigint, body: Buffer): Buffer {
  const head = Buffer.alloc(28);
  head.write('OggS', 0, 'latin1');
  head.writeBigInt64LE(granule, 6);
  head[26] = 1;
  head[27] = body.length;
  return Buffer.concat([head, body]);
}

describe('audio files by their bytes', () => {
  it('WebM as MediaRecorder writes it (unknown sizes, no duration): the last block\'s time', () => {
    const webm = Buffer.from([
      0x1a, 0x45, 0xdf, 0xa3, 0x84, 0x42, 0x86, 0x81, 0x01, // EBML header (4 bytes of children)
      0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Segment, unknown size
      0x15, 0x49, 0xa9, 0x66, 0x87, 0x2a, 0xd7, 0xb1, 0x83, 0x0f, 0x42, 0x40, // Info { TimecodeScale 1,000,000 }
      0x1f, 0x43, 0xb6, 0x75, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Cluster, unknown size
      0xe7, 0x82, 0x07, 0xd0, // Timecode 2000
      0xa3, 0x85, 0x81, 0x01, 0xf4, 0x80, 0x00, // SimpleBlock track 1 at +500
    ]);
    expect(readAudioFile(webm)).toEqual({ format: 'webm', extension: 'webm', mimeType: 'audio/webm', seconds: 2.52 });
  });

  it('Ogg Opus: the last page\'s granule at 48 kHz', () => {
    const ogg = Buffer.concat([oggPage(0n, Buffer.from('OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00', 'latin1')), oggPage(96_000n, Buffer.from('audio'))]);
    expect(readAudioFile(ogg)).toMatchObject({ format: 'ogg', seconds: 2 });
  });

  it('refuses text, images and a bare RIFF/WAVE header; knows MP3, MP4 and FLAC without a length', () => {
    expect(readAudioFile(Buffer.from('just text'))).toBeUndefined();
    expect(readAudioFile(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).toBeUndefined();
    expect(readAudioFile(Buffer.concat([Buffer.from('RIFF\x00\x00\x00\x00WAVE', 'latin1'), Buffer.alloc(40)]))).toBeUndefined();
    expect(audioFormatOf(Buffer.from('ID3\x04\x00', 'latin1'))).toBe('mp3');
    expect(readAudioFile(Buffer.from('\x00\x00\x00\x20ftypM4A \x00\x00', 'latin1'))).toMatchObject({ format: 'mp4', extension: 'm4a', seconds: null });
    expect(readAudioFile(Buffer.from('fLaC\x00\x00\x00\x22', 'latin1'))).toMatchObject({ format: 'flac', seconds: null });
  });
});
