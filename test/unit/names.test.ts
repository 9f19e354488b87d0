/** Issue 41 (11): the invisible and format characters a name may not hold, and the sequences that keep them. */
import { describe, expect, it } from 'vitest';
import { hasInvisibleCharacter, Text } from '../../shared/platform/api/common.js';
import * as z from '../../shared/platform/zod.js';

const refused: [string, string][] = [
  ['a right-to-left mark', 'Payments\u200F'.concat(' API')],
  ['a left-to-right mark', 'Pay\u200Ements'],
  ['an Arabic letter mark', 'Pay\u061Cments'],
  ['a zero-width space inside a word', 'Pay\u200Bments'],
  ['a zero-width joiner between Latin letters', 'Pay\u200Dments'],
  ['a line separator', 'Pay\u2028ments'],
  ['a paragraph separator', 'Pay\u2029ments'],
  ['tag characters (hidden ASCII)', 'Payments\u{E0069}\u{E0067}\u{E006E} API'],
  ['a stray cancel tag', 'Payments \u{E007F}'],
  ['a soft hyphen', 'Pay\u00ADments'],
  ['a word joiner', 'Pay\u2060ments'],
  ['a Hangul filler', 'Pay\u3164ments'],
  ['a combining grapheme joiner', 'Pay\u034Fments'],
  ['a variation selector after a Latin letter', 'Pay\uFE0Fments'],
  ['an interlinear annotation character', 'Pay\uFFF9ments'],
  ['a Mongolian vowel separator', 'Pay\u180Ements'],
];

const kept: [string, string][] = [
  ['a family emoji (ZWJ sequence)', '👨‍👩‍👧 On-call'],
  ['an emoji with a skin tone in a ZWJ sequence', '👩🏽‍💻 Developers'],
  ['the rainbow flag (VS16 + ZWJ)', '🏳️‍🌈 Pride'],
  ['a keycap', '1️⃣ First line'],
  ['a subdivision flag (tag sequence)', '🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland'],
  ['Persian with ZWNJ', 'تیم می‌خواهم'],
  ['Devanagari with ZWJ', 'क्‍ष टीम'],
  ['a Malayalam chillu with ZWJ', 'ന്‍ ടീം'],
  ['an ideographic variation sequence', '葛󠄀城'],
  ['Arabic and Hebrew text', 'فريق הצוות'],
];

describe('names (issue 41, 11)', () => {
  it.each(refused)('refuses %s', (_, value) => {
    expect(hasInvisibleCharacter(value)).toBe(true);
    const parsed = z.safeParse(Text({ min: 1, max: 100, name: true }), value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toContain('Must not contain invisible or format characters');
  });

  it.each(kept)('keeps %s', (_, value) => {
    expect(hasInvisibleCharacter(value)).toBe(false);
    expect(z.parse(Text({ min: 1, max: 100, name: true }), value)).toBe(value);
  });

  it('leaves text that is no name (titles, messages) to its own rules', () => {
    expect(z.parse(Text({ min: 1, max: 100 }), 'Pay\u200Bments')).toBe('Pay\u200Bments');
  });
});
