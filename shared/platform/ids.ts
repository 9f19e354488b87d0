import { createHash, randomBytes } from 'node:crypto';
import { clock } from './clock.js';

/** The last millisecond an id was made for in this process, and its counter (RFC 9562 §6.2, method 1). */
let lastMs = -1;
let counter = 0;

/**
 * A UUID version 7 (RFC 9562): its first 48 bits are the creation time in milliseconds, so ids
 * sort by creation. Used where an item collection is listed in creation order by its sort key.
 * Within one millisecond of one process the 12 bits after the version are a counter (started at a
 * random value below 2,048, so at least 2,048 ids a millisecond keep their order): an incident's
 * `created` entry and a note written after it in the same millisecond list in that order.
 */
export function timeOrderedUuid(now = clock.now().getTime()): string {
  const bytes = randomBytes(16);
  if (now === lastMs && counter < 0xfff) counter++;
  else {
    lastMs = now;
    counter = bytes.readUInt16BE(6) & 0x7ff;
  }
  bytes.writeUIntBE(now, 0, 6);
  bytes.writeUInt16BE(0x7000 | counter, 6);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A name-based UUID, version 5 (RFC 9562): the same name in the same namespace always gives the
 * same id, and no two names (in practice) give one.
 */
export function nameBasedUuid(namespace: string, name: string): string {
  const digest = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  const bytes = digest.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
