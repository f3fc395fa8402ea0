import { randomFillSync } from 'node:crypto';

/**
 * Ids of usage events (also the reply ids visitors rate): UUID version 7, i.e. the millisecond
 * time followed by 74 random bits. Ids made later sort later, so the primary key index grows at
 * its end instead of being written at random places (which costs a page write per event on
 * SQLite's WAL), and an id is still unguessable.
 */
const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

export function newUsageEventId(now = Date.now()): string {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + 16));
  offset += 16;
  bytes.writeUIntBE(Math.max(0, Math.min(now, 0xffffffffffff)), 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
