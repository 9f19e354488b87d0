/** Every value a log line carries is masked: e-mail addresses keep their first letter and domain, JWTs go. */
import { describe, expect, it } from 'vitest';
import { mask } from '../../functions/lib/observability.js';

const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';

describe('log masking', () => {
  it('masks e-mail addresses and drops JWTs at any depth, and leaves other values as they were', () => {
    const masked = mask({
      message: `invited alice@example.com with ${jwt}`,
      nested: { list: ['bob.smith@mail.example.org', 42, null, true], header: `Bearer ${jwt}` },
      plain: 'nothing to hide',
      count: 3,
    });
    expect(JSON.parse(JSON.stringify(masked))).toEqual({
      message: 'invited a***@example.com with [jwt]',
      nested: { list: ['b***@mail.example.org', 42, null, true], header: 'Bearer [jwt]' },
      plain: 'nothing to hide',
      count: 3,
    });
  });

  it('keeps an own __proto__ key (parsed JSON) as a masked key, not as a prototype', () => {
    const masked = mask(JSON.parse('{"__proto__":{"email":"alice@example.com"},"a":1}'));
    expect(JSON.stringify(masked)).toBe('{"__proto__":{"email":"a***@example.com"},"a":1}');
  });

  it('masks an error as its name, message and stack', () => {
    const masked = mask(new Error('no account for carol@example.com')) as Record<string, unknown>;
    expect(masked).toMatchObject({ name: 'Error', message: 'no account for c***@example.com' });
    expect(String(masked.stack)).not.toContain('carol@example.com');
  });
});
