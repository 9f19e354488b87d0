import { describe, expect, it } from 'vitest';
import { attemptSummary, delayText, e164, hasPhone, rulesByUrgency, slugFromName } from './people.js';

describe('slugFromName', () => {
  it('proposes lowercase letters, digits and hyphens', () => {
    expect(slugFromName('  Site Reliability (EU) ')).toBe('site-reliability-eu');
    expect(slugFromName('Équipe Réseau')).toBe('equipe-reseau');
    expect(slugFromName('***')).toBe('');
  });
});

describe('e164', () => {
  it('drops what people type between digits and keeps E.164', () => {
    expect(e164('+1 (415) 555-0100')).toBe('+14155550100');
    expect(e164('+49 30.1234567')).toBe('+49301234567');
  });
  it('refuses what is not E.164', () => {
    expect(e164('4155550100')).toBeUndefined();
    expect(e164('+0415550100')).toBeUndefined();
    expect(e164('+1234567')).toBeUndefined();
    expect(e164('+1415555010012345')).toBeUndefined();
  });
});

it('hasPhone: SMS or voice, not e-mail', () => {
  expect(hasPhone([{ type: 'email' }])).toBe(false);
  expect(hasPhone([{ type: 'email' }, { type: 'voice' }])).toBe(true);
});

it('rulesByUrgency: high first, each by delay', () => {
  const rules = [
    { id: 'a', urgency: 'low' as const, delay_minutes: 5 },
    { id: 'b', urgency: 'high' as const, delay_minutes: 10 },
    { id: 'c', urgency: 'high' as const, delay_minutes: 0 },
  ];
  expect(rulesByUrgency(rules).map((group) => [group.urgency, group.rules.map((rule) => rule.id)])).toEqual([
    ['high', ['c', 'b']],
    ['low', ['a']],
  ]);
});

it('delayText', () => {
  expect(delayText(0)).toBe('at once');
  expect(delayText(1)).toBe('after 1 minute');
  expect(delayText(15)).toBe('after 15 minutes');
});

it('attemptSummary: the status or the error, and the time', () => {
  expect(attemptSummary({ status: 204, duration_ms: 12.4, error: null })).toBe('HTTP 204 in 12 ms');
  expect(attemptSummary({ status: 503, duration_ms: 80, error: 'Service Unavailable' })).toBe('HTTP 503 — Service Unavailable in 80 ms');
  expect(attemptSummary({ status: null, duration_ms: 5000, error: 'Timed out' })).toBe('Timed out in 5000 ms');
});
