import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  integrationKeyHash,
  integrationKeyHint,
  isIntegrationKeyShaped,
  keyFromAuthorization,
  newIntegrationKey,
} from '../../shared/integrations/keys.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

describe('integration keys', () => {
  it('are 32 characters of [a-z0-9], fresh each time, and pass PagerDuty\'s routing-key checks', () => {
    const keys = Array.from({ length: 200 }, newIntegrationKey);
    for (const key of keys) {
      expect(key).toMatch(/^[a-z0-9]{32}$/);
      expect(isIntegrationKeyShaped(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('draw every character of the alphabet about equally (no modulo bias)', () => {
    // 3,000 keys = 96,000 characters, 2,667 expected per character; the modulo bias of taking bytes
    // mod 36 unfiltered would give the first 4 characters 8/7 of the others' share (about 3,000 vs 2,625).
    const counts = new Map<string, number>();
    for (let i = 0; i < 3_000; i++) for (const character of newIntegrationKey()) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe('0123456789abcdefghijklmnopqrstuvwxyz');
    const expected = 96_000 / 36;
    // Chi-square over 35 degrees of freedom: a fair draw exceeds 100 about once in 10^7 runs, while the
    // bias of 8/7 on four characters gives about 220 (measured: 234–258 over five runs).
    const chiSquare = [...counts.values()].reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeLessThan(100);
  });

  it('are kept as their SHA-256 (hex) and shown by their last 4 characters', () => {
    const key = 'abcdefghijklmnopqrstuvwxyz012345';
    expect(integrationKeyHash(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(integrationKeyHash(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(integrationKeyHint(key)).toBe('2345');
  });

  it('have a shape: anything else is not one of ours', () => {
    for (const value of ['', 'a'.repeat(31), 'a'.repeat(33), 'A'.repeat(32), `${'a'.repeat(31)}-`, `${'a'.repeat(32)}\n`]) {
      expect(isIntegrationKeyShaped(value), JSON.stringify(value)).toBe(false);
    }
  });
});

describe('the key in Authorization', () => {
  const key = 'k'.repeat(32);

  it('Bearer <key>, the scheme in any case', () => {
    expect(keyFromAuthorization(`Bearer ${key}`)).toEqual({ ok: true, key });
    expect(keyFromAuthorization(`bearer ${key}`)).toEqual({ ok: true, key });
    expect(keyFromAuthorization(`  BEARER   ${key}  `)).toEqual({ ok: true, key });
  });

  it('Basic auth whose password is the key; the user name is ignored, a password may hold colons', () => {
    expect(keyFromAuthorization(basic('alertmanager', key))).toEqual({ ok: true, key });
    expect(keyFromAuthorization(basic('', key))).toEqual({ ok: true, key });
    expect(keyFromAuthorization(basic('user', 'a:b'))).toEqual({ ok: true, key: 'a:b' });
    expect(keyFromAuthorization(basic('user', key).replace('Basic', 'BASIC'))).toEqual({ ok: true, key });
  });

  it('missing', () => {
    expect(keyFromAuthorization(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(keyFromAuthorization('')).toEqual({ ok: false, reason: 'missing' });
    expect(keyFromAuthorization('   ')).toEqual({ ok: false, reason: 'missing' });
  });

  it('another scheme', () => {
    expect(keyFromAuthorization(`Token ${key}`)).toEqual({ ok: false, reason: 'unsupported scheme' });
    expect(keyFromAuthorization(`Digest ${key}`)).toEqual({ ok: false, reason: 'unsupported scheme' });
  });

  it('malformed: no credentials, more than one word, Basic that is not base64 of user:password, or with no password', () => {
    for (const header of [
      'Bearer',
      `Bearer ${key} extra`,
      key,
      'Basic !!!!',
      'Basic abc',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      basic('user', ''),
      `Bearer:${key}`,
    ]) {
      expect(keyFromAuthorization(header), header).toEqual({ ok: false, reason: 'malformed' });
    }
  });
});
