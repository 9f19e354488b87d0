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
 * Text a person typed (titles, names, messages): well-formed Unicode without control characters,
 * trimmed of white space and zero-width characters at both ends — so a value that is only those
 * is empty — then `min`–`max` characters. Real DynamoDB refuses strings that are not valid UTF-8
 * (a lone surrogate), and a CR/LF in a name would end up in an e-mail header.
 */
export function Text(options: { min?: number; max: number; multiline?: boolean }) {
  const control = options.multiline ? CONTROL_EXCEPT_LINES : CONTROL;
  const description = `Trimmed of white space and zero-width characters at both ends${options.min ? `; ${options.min}–${options.max} characters remain` : `; at most ${options.max} characters remain`}. No control characters${options.multiline ? ' other than tab and line breaks' : ''}, no bidirectional controls (U+202A–U+202E, U+2066–U+2069).`;
  const text = z.string().check(
    z.refine((value) => !LONE_SURROGATE.test(value), { message: 'Must be valid Unicode text (no lone surrogates)', abort: true }),
    z.refine((value) => !control.test(value), { message: options.multiline ? 'Must not contain control characters other than tab and line breaks' : 'Must not contain control characters' }),
    z.refine((value) => !BIDI_CONTROL.test(value), { message: 'Must not contain bidirectional control characters' }),
    z.overwrite((value) => value.replace(INVISIBLE_EDGES, '')),
    z.maxLength(options.max),
    ...(options.min ? [z.minLength(options.min)] : []),
  );
  return described(text, { description });
}
