/** Every value a log line carries is masked: e-mail addresses keep their first letter and domain, JWTs go. */
import { describe, expect, it } from 'vitest';
import { maskedJson } from '../../functions/lib/observability.js';

const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';

describe('log masking', () => {
  it('masks e-mail addresses and drops JWTs at any depth, and leaves other values as they were', () => {
    const masked = maskedJson({
      message: `invited alice@example.com with ${jwt}`,
      nested: { list: ['bob.smith@mail.example.org', 42, null, true], header: `Bearer ${jwt}` },
      plain: 'nothing to hide',
      count: 3,
    });
    expect(JSON.parse(masked)).toEqual({
      message: 'invited a***@example.com with [jwt]',
      nested: { list: ['b***@mail.example.org', 42, null, true], header: 'Bearer [jwt]' },
      plain: 'nothing to hide',
      count: 3,
    });
  });

  it('masks integration keys standing alone, and no longer or shorter runs of letters and digits', () => {
    const key = 'q3xw8e1vz0c6ty5bu4nj7mr9sa2hdk2m';
    const hash = 'a'.repeat(64);
    // "\u001e" and 27 characters more serialize as 32 of [a-z0-9] after a backslash: no key, kept as it is.
    const escaped = `\u001e${'a'.repeat(27)}`;
    expect(JSON.parse(maskedJson({ body: `{"routing_key":"${key}"}`, path: `/heartbeats/${key}`, header: `Bearer ${key}`, line: `key:\n${key}`, hash, escaped, id: '019aa5d6-1f40-7a3c-9b2e-6f1d0c8e5a01' }))).toEqual({
      body: '{"routing_key":"[key]"}',
      path: '/heartbeats/[key]',
      header: 'Bearer [key]',
      line: 'key:\n[key]',
      hash,
      escaped,
      id: '019aa5d6-1f40-7a3c-9b2e-6f1d0c8e5a01',
    });
  });

  it('keeps an own __proto__ key (parsed JSON) as a masked key, not as a prototype', () => {
    const masked = maskedJson(JSON.parse('{"__proto__":{"email":"alice@example.com"},"a":1}'));
    expect(masked).toBe('{"__proto__":{"email":"a***@example.com"},"a":1}');
  });

  it('masks an error, at any depth, as its name, message and stack, and its cause', () => {
    const failure = new Error('no account for carol@example.com', { cause: new TypeError(`bad token ${jwt}`) });
    const masked = JSON.parse(maskedJson({ attempt: { error: failure } })) as { attempt: { error: Record<string, unknown> } };
    expect(masked.attempt.error).toMatchObject({ name: 'Error', message: 'no account for c***@example.com', cause: { name: 'TypeError', message: 'bad token [jwt]' } });
    expect(String(masked.attempt.error.stack)).not.toContain('carol@example.com');
  });

  it('never starts a mask inside a JSON escape, so the line stays JSON', () => {
    const values = {
      bell: 'x\u0007bob@example.com',
      surrogate: '\ud83dbob@example.com',
      newline: 'to:\nbob@example.com',
      // \u001e serializes as an escape ending in "e": what follows is no JWT, and is kept.
      notJwt: `a\u001e${jwt.slice(1)}`,
      jwtAfterControl: `a\u0007${jwt}`,
    };
    const masked = maskedJson(values);
    expect(JSON.parse(masked)).toEqual({
      bell: 'x\u0007b***@example.com',
      surrogate: '\ud83db***@example.com',
      newline: 'to:\nb***@example.com',
      notJwt: `a\u001e${jwt.slice(1)}`,
      jwtAfterControl: 'a\u0007[jwt]',
    });
  });

  it('masks what an e-mail address or a JWT looks like inside a longer string, escapes included', () => {
    expect(JSON.parse(maskedJson({ text: 'to:\t"dave@example.com", cc: erin+ops@example.co.uk' }))).toEqual({ text: 'to:\t"d***@example.com", cc: e***@example.co.uk' });
  });
});
