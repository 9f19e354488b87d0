/** Phone numbers (issue 43): E.164 as the only accepted form, and the masked form the timeline shows. */
import { describe, expect, it } from 'vitest';
import { E164_MESSAGE, isE164, maskPhone, normalizePhone } from '../../shared/channels/phone.js';
import { parseCommand } from '../../shared/phones/replies.js';
import { deliveryStatusOf, phoneSpendOf, receiptEventTypes } from '../../shared/phones/receipts.js';

describe('E.164', () => {
  it('accepts + then 8 to 15 digits, the first 1–9', () => {
    for (const number of ['+14155550100', '+12345678', '+123456789012345', '+447700900123']) expect(isE164(number), number).toBe(true);
  });

  it('refuses anything else: no +, a leading 0, too short, too long, spaces and punctuation, letters', () => {
    for (const number of ['14155550100', '+04155550100', '+1234567', '+1234567890123456', '+1 415 555 0100', '+1(415)5550100', '+1415555010a', '', '+']) {
      expect(isE164(number), number).toBe(false);
      expect(normalizePhone(number)).toEqual({ error: E164_MESSAGE });
    }
    expect(E164_MESSAGE).toBe('must be a phone number in E.164 form: + and 8 to 15 digits, as in +14155550100');
  });

  it('normalizes a valid number to itself', () => {
    expect(normalizePhone('+14155550100')).toEqual({ address: '+14155550100' });
  });
});

describe('masking', () => {
  it('keeps the +, the first digit and the last four', () => {
    expect(maskPhone('+18005550100')).toBe('+1•••0100');
    expect(maskPhone('+447700900123')).toBe('+4•••0123');
    expect(maskPhone('+12345678')).toBe('+1•••5678');
  });

  it('shows nothing of a value that is not a number', () => {
    expect(maskPhone('alice@example.com')).toBe('•••');
  });
});

describe('SMS reply commands', () => {
  it('reads <n>a, <n>r, <n>e with case and spaces ignored', () => {
    expect(parseCommand('12a')).toEqual({ kind: 'action', code: 12, action: 'acknowledge' });
    expect(parseCommand(' 12 A ')).toEqual({ kind: 'action', code: 12, action: 'acknowledge' });
    expect(parseCommand('3R')).toEqual({ kind: 'action', code: 3, action: 'resolve' });
    expect(parseCommand('7 e')).toEqual({ kind: 'action', code: 7, action: 'escalate' });
  });

  it('knows the carriers opt-out and opt-in words and HELP', () => {
    for (const word of ['STOP', 'stop', 'StopAll', 'UNSUBSCRIBE', 'cancel', 'END', 'quit', 'OPTOUT', 'opt-out', 'REMOVE', 'ARRET', 'TD']) expect(parseCommand(word), word).toEqual({ kind: 'stop' });
    for (const word of ['START', 'unstop']) expect(parseCommand(word), word).toEqual({ kind: 'start' });
    for (const word of ['HELP', 'help', 'INFO']) expect(parseCommand(word), word).toEqual({ kind: 'help' });
  });

  it('takes anything else as unknown', () => {
    for (const text of ['hello', '12', 'a12', '12x', '0a', '12ab', 'please stop', '']) expect(parseCommand(text), text).toEqual({ kind: 'unknown' });
  });
});

describe('receipts', () => {
  it('maps final event types to delivered or failed, and nothing for the intermediate ones', () => {
    expect(deliveryStatusOf('TEXT_DELIVERED')).toBe('delivered');
    expect(deliveryStatusOf('TEXT_SUCCESSFUL')).toBe('delivered');
    expect(deliveryStatusOf('VOICE_COMPLETED')).toBe('delivered');
    for (const type of ['TEXT_UNREACHABLE', 'TEXT_BLOCKED', 'TEXT_CARRIER_UNREACHABLE', 'TEXT_TTL_EXPIRED', 'VOICE_FAILED', 'VOICE_BUSY', 'VOICE_NO_ANSWER']) expect(deliveryStatusOf(type), type).toBe('failed');
    for (const type of ['TEXT_QUEUED', 'TEXT_PENDING', 'TEXT_SENT', 'TEXT_UNKNOWN', 'VOICE_INITIATED', 'VOICE_RINGING', 'VOICE_ANSWERED']) expect(deliveryStatusOf(type), type).toBeUndefined();
  });

  it('asks the configuration set for exactly the final event types it maps (issue 43 §5: its SNS event destination on AWS)', () => {
    expect(receiptEventTypes.length).toBe(new Set(receiptEventTypes).size);
    for (const type of receiptEventTypes) expect(deliveryStatusOf(type), type).toMatch(/^(delivered|failed)$/);
    expect(receiptEventTypes).toEqual(expect.arrayContaining(['TEXT_DELIVERED', 'TEXT_SUCCESSFUL', 'VOICE_COMPLETED', 'TEXT_UNREACHABLE', 'VOICE_FAILED', 'VOICE_NO_ANSWER']));
    for (const type of ['TEXT_ALL', 'VOICE_ALL', 'TEXT_QUEUED', 'TEXT_SENT', 'VOICE_RINGING']) expect(receiptEventTypes, type).not.toContain(type);
  });

  it("counts a message's spend once, from its final event: the price and the carriers' fee", () => {
    expect(phoneSpendOf({ isFinal: true, totalMessagePrice: 0.00581, totalCarrierFee: 0.00302 })).toBeCloseTo(0.00883, 10);
    expect(phoneSpendOf({ isFinal: true, totalMessagePrice: 0.013 })).toBe(0.013);
    expect(phoneSpendOf({ isFinal: true, totalCarrierFee: 0.003 })).toBe(0.003);
    expect(phoneSpendOf({ isFinal: true, totalMessagePrice: 0, totalCarrierFee: 0 })).toBe(0);
    // An intermediate event (its message's final one will say), or one naming no price: nothing.
    expect(phoneSpendOf({ isFinal: false, totalMessagePrice: 0.00581, totalCarrierFee: 0.00302 })).toBeUndefined();
    expect(phoneSpendOf({ totalMessagePrice: 0.00581 })).toBeUndefined();
    expect(phoneSpendOf({ isFinal: true })).toBeUndefined();
  });
});
