/** Building blocks of the API's response schemas (documented in the generated OpenAPI document). */
import * as z from '../zod.js';

/**
 * The schema with documentation for the OpenAPI document (`id` names a component): a copy, so
 * the schema it came from keeps its own. (Not `.check(z.meta(…))`: a check on an object schema
 * would forbid extending it.)
 */
export function described<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  const copy = schema.clone() as T;
  z.globalRegistry.add(copy, meta);
  return copy;
}

export const Id = described(z.uuid(), { example: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c' });
export const Timestamp = described(z.iso.datetime(), { description: 'ISO 8601 UTC', example: '2026-11-21T10:15:30.000Z' });

export const MessageBody = described(z.strictObject({ message: z.string() }), { id: 'Message' });

export const FieldError = described(z.strictObject({ field: z.string(), message: z.string() }), { id: 'FieldError' });

/** Where the next page of a list starts: pass it as `cursor`; null on the last page. */
export const NextCursor = described(z.nullable(z.string()), {
  description: 'Pass as `cursor` for the next page; null on the last page',
  example: 'eyJ2IjoxLCJwIjoi…',
});

/** White space, and the zero-width characters that show nothing (ZWSP, ZWNJ, ZWJ, word joiner, BOM). */
export const INVISIBLE_EDGES = /^[\s\u200B-\u200D\u2060\uFEFF]+|[\s\u200B-\u200D\u2060\uFEFF]+$/g;
/** Control characters (C0, DEL, C1); `multiline` text keeps tab, line feed and carriage return. */
/** A high surrogate without its low half, or a low one without its high half. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
/**
 * Bidirectional embedding, override and isolate controls (LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI,
 * PDI): in an e-mail subject or a page they can make a title display other text than it holds.
 */
export const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/**
 * Characters that show nothing, or only steer how the text around them displays: format characters
 * (Cf: zero-width space, LRM/RLM, the Arabic letter mark, soft hyphen, word joiner, BOM, bidi controls,
 * tag characters), line and paragraph separators (U+2028, U+2029) and the other default-ignorable code
 * points (Hangul fillers, the combining grapheme joiner, variation selectors). A name that holds one can
 * look like another name, or hide text (issue 41, 11). Tested after `NAME_INVISIBLE_ALLOWED` is removed.
 */
export const NAME_INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;
/**
 * The invisible characters a name keeps, where they are part of what it shows: the tag sequence of a
 * subdivision flag (🏴 + lower-case letters and digits as tags + cancel tag); ZWJ inside an emoji
 * sequence (👩‍💻, 🏳️‍🌈); ZWJ and ZWNJ after a letter or mark of a script that spells with them (Arabic and
 * Persian, Syriac, Thaana, N'Ko, the Indic scripts, Sinhala, Tibetan, Myanmar, Khmer, Mongolian); VS15/VS16
 * after an emoji character (1️⃣); other variation selectors after an ideograph or a Mongolian letter.
 */
export const NAME_INVISIBLE_ALLOWED =
  /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,6}\u{E007F}|(?<=[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F])\u200D(?=\p{Extended_Pictographic})|(?<=[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Tibetan}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Mongolian}])[\u200C\u200D]|(?<=\p{Emoji})[\uFE0E\uFE0F]|(?<=\p{Ideographic})[\uFE00-\uFE0D\u{E0100}-\u{E01EF}]|(?<=\p{Script=Mongolian})[\u180B-\u180D\u180F]/gu;
/** Whether a name holds an invisible or format character outside the sequences it may keep them in. */
export const hasInvisibleCharacter = (value: string) => NAME_INVISIBLE.test(value.replace(NAME_INVISIBLE_ALLOWED, ''));

/**
 * Text a person typed (titles, names, messages): well-formed Unicode without control characters,
 * trimmed of white space and zero-width characters at both ends — so a value that is only those
 * is empty — then `min`–`max` characters. Real DynamoDB refuses strings that are not valid UTF-8
 * (a lone surrogate), and a CR/LF in a name would end up in an e-mail header.
 */
export function Text(options: { min?: number; max: number; multiline?: boolean; name?: boolean }) {
  const control = options.multiline ? CONTROL_EXCEPT_LINES : CONTROL;
  const description = `Trimmed of white space and zero-width characters at both ends${options.min ? `; ${options.min}–${options.max} characters remain` : `; at most ${options.max} characters remain`}. No control characters${options.multiline ? ' other than tab and line breaks' : ''}, no bidirectional controls (U+202A–U+202E, U+2066–U+2069)${options.name ? '; no other invisible or format characters (U+200B, U+200E/U+200F, U+061C, U+2028/U+2029, tag characters, …) except ZWJ in emoji sequences, ZWJ/ZWNJ in scripts that spell with them, variation selectors after emoji or ideographs, and subdivision flags' : ''}.`;
  const text = z.string().check(
    z.refine((value) => !LONE_SURROGATE.test(value), { message: 'Must be valid Unicode text (no lone surrogates)', abort: true }),
    z.refine((value) => !control.test(value), { message: options.multiline ? 'Must not contain control characters other than tab and line breaks' : 'Must not contain control characters' }),
    z.refine((value) => !BIDI_CONTROL.test(value), { message: 'Must not contain bidirectional control characters' }),
    z.overwrite((value) => value.replace(INVISIBLE_EDGES, '')),
    z.refine((value) => !options.name || !hasInvisibleCharacter(value), { message: 'Must not contain invisible or format characters' }),
    z.maxLength(options.max),
    ...(options.min ? [z.minLength(options.min)] : []),
  );
  return described(text, { description });
}
