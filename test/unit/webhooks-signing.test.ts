import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { freezeClock, resetClock } from '../../shared/platform/clock.js';
import {
  generateSecret,
  messageId,
  newMessageId,
  ROTATION_OVERLAP_MS,
  secretKey,
  sign,
  signatureHeaders,
  signingSecrets,
} from '../../shared/webhooks/signing.js';

// The receiver's library, as a receiver installs it (CommonJS).
const { Webhook, WebhookVerificationError } = createRequire(import.meta.url)('standardwebhooks') as typeof import('standardwebhooks');

const body = JSON.stringify({ type: 'incident.created', timestamp: '2026-11-21T10:05:00.000Z', data: { incident: { id: 'i-1', title: 'Café <down> & out' } } });

afterEach(() => resetClock());

describe('webhook secrets and ids', () => {
  it('a secret is whsec_ and the base64 of 32 random bytes, new each time', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(secret)).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
  });

  it('a malformed secret is refused without being named', () => {
    expect(() => secretKey('whsec_short')).toThrow(/^Malformed webhook secret$/);
    expect(() => secretKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYq=')).toThrow('Malformed webhook secret');
    expect(() => secretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS')).toThrow('Malformed webhook secret');
    expect(() => secretKey(`whsec_${Buffer.alloc(16).toString('base64')}`)).toThrow('Malformed webhook secret');
    expect(() => secretKey(`whsec_${Buffer.alloc(65).toString('base64')}`)).toThrow('Malformed webhook secret');
    expect(secretKey(`whsec_${Buffer.alloc(24, 1).toString('base64')}`)).toEqual(Buffer.alloc(24, 1));
  });

  it('a message id is stable for one event and webhook, distinct otherwise, and has no "."', () => {
    const id = messageId('w-1', 'e-1');
    expect(id).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(messageId('w-1', 'e-1')).toBe(id);
    expect(messageId('w-2', 'e-1')).not.toBe(id);
    expect(messageId('w-1', 'e-2')).not.toBe(id);
    expect(newMessageId()).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(newMessageId()).not.toBe(newMessageId());
  });
});

describe('webhook signatures', () => {
  it('match the reference libraries on a known message', () => {
    // The example of the Standard Webhooks reference libraries' tests.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    expect(sign(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(expected);
    expect(new Webhook(secret).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), '{"test": 2432232314}')).toBe(expected);
  });

  it('one secret: the headers verify with standardwebhooks, and the body comes back', () => {
    const secret = generateSecret();
    const headers = signatureHeaders({ id: messageId('w-1', 'e-1'), body, secrets: [secret] });
    expect(Object.keys(headers)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    // As the bytes arrive (a Buffer), too.
    expect(new Webhook(secret).verify(Buffer.from(body, 'utf8'), { ...headers })).toEqual(JSON.parse(body));
    // The same as signing each part by hand.
    expect(headers['webhook-signature']).toBe(sign(secret, headers['webhook-id'], Number(headers['webhook-timestamp']), body));
  });

  it('two secrets: two space-separated signatures, each secret alone verifies, a third does not', () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const headers = signatureHeaders({ id: 'msg_1', body, secrets: [current, previous] });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, { ...headers })).toThrow('No matching signature found');
  });

  it('a tampered body, timestamp or id fails verification', () => {
    const secret = generateSecret();
    const headers = signatureHeaders({ id: 'msg_1', body, secrets: [secret] });
    const receiver = new Webhook(secret);
    expect(() => receiver.verify(body.replace('Café', 'Cafe'), { ...headers })).toThrow(WebhookVerificationError);
    expect(() => receiver.verify(`${body} `, { ...headers })).toThrow('No matching signature found');
    const earlier = String(Number(headers['webhook-timestamp']) - 1);
    expect(() => receiver.verify(body, { ...headers, 'webhook-timestamp': earlier })).toThrow('No matching signature found');
    expect(() => receiver.verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow('No matching signature found');
  });

  it('the timestamp is the clock\'s, in whole seconds, and a stale one is refused by the receiver', () => {
    const secret = generateSecret();
    freezeClock(new Date(Date.now() - 10 * 60 * 1000 + 999));
    const headers = signatureHeaders({ id: 'msg_1', body, secrets: [secret] });
    expect(Number(headers['webhook-timestamp'])).toBe(Math.floor((Date.now() - 10 * 60 * 1000 + 999) / 1000));
    resetClock();
    expect(() => new Webhook(secret).verify(body, { ...headers })).toThrow('Message timestamp too old');
  });

  it('refuses an id with "." and an empty list of secrets', () => {
    expect(() => signatureHeaders({ id: 'msg.1', body, secrets: [generateSecret()] })).toThrow('A webhook message id must be non-empty and contain no "."');
    expect(() => signatureHeaders({ id: '', body, secrets: [generateSecret()] })).toThrow('A webhook message id must be non-empty and contain no "."');
    expect(() => signatureHeaders({ id: 'msg_1', body, secrets: [] })).toThrow('A webhook message needs at least one signing secret');
  });
});

describe('secret rotation', () => {
  const rotatedAt = '2026-11-21T10:00:00.000Z';
  const secrets = { secret: 'whsec_new', previous: { secret: 'whsec_old', rotated_at: rotatedAt } };

  it('signs with both secrets for 24 hours after a rotation, then with the new one alone', () => {
    const start = Date.parse(rotatedAt);
    expect(signingSecrets(secrets, new Date(start))).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(secrets, new Date(start + ROTATION_OVERLAP_MS - 1))).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(secrets, new Date(start + ROTATION_OVERLAP_MS))).toEqual(['whsec_new']);
    expect(signingSecrets({ secret: 'whsec_new' }, new Date(start))).toEqual(['whsec_new']);
    expect(signingSecrets({ secret: 'whsec_new', previous: null }, new Date(start))).toEqual(['whsec_new']);
  });

  it('reads the service clock by default', () => {
    freezeClock(new Date(Date.parse(rotatedAt) + ROTATION_OVERLAP_MS - 1000));
    expect(signingSecrets(secrets)).toHaveLength(2);
    freezeClock(new Date(Date.parse(rotatedAt) + ROTATION_OVERLAP_MS));
    expect(signingSecrets(secrets)).toHaveLength(1);
  });
});
