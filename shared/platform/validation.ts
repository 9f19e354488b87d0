import * as z from './zod.js';
import type { FieldError } from './errors.js';

/** Path parameters of a resource addressed by id. */
export const idParams = z.strictObject({ id: z.uuid() });

/** Request schemas for routes that take no input of that kind. */
export const noParams = z.strictObject({});
/** Unknown query parameters are ignored (clients add cache-busters and tracking parameters). */
export const noQuery = z.object({});
/** Routes without a body accept none, or an empty JSON object (some clients always send `{}`). */
export const noBody = z.union([z.undefined(), z.strictObject({})], { error: 'This endpoint takes no request body' });

/** Zod issues as `{field, message}`; unknown keys become one entry each. */
export function fieldErrors(error: z.core.$ZodError, root: string): FieldError[] {
  return error.issues.flatMap((issue) => {
    const field = issue.path.length ? issue.path.join('.') : root;
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: issue.path.length ? `${field}.${key}` : key,
        message: 'Unknown field',
      }));
    }
    return [{ field, message: issue.message }];
  });
}

