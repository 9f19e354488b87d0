/** Building blocks of the API's response schemas (documented in the generated OpenAPI document). */
import * as z from 'zod';

export const Id = z.uuid().meta({ example: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c' });
export const Timestamp = z.iso.datetime().meta({ description: 'ISO 8601 UTC', example: '2026-11-21T10:15:30.000Z' });

export const MessageBody = z.strictObject({ message: z.string() }).meta({ id: 'Message' });

export const FieldError = z.strictObject({ field: z.string(), message: z.string() }).meta({ id: 'FieldError' });

/** Where the next page of a list starts: pass it as `cursor`; null on the last page. */
export const NextCursor = z
  .string()
  .nullable()
  .meta({ description: 'Pass as `cursor` for the next page; null on the last page', example: 'eyJ2IjoxLCJwIjoi…' });
