import * as z from 'zod';

/** Path parameters of a resource addressed by id. */
export const idParams = z.strictObject({ id: z.uuid() });

/** Request schemas for routes that take no input of that kind. */
export const noParams = z.strictObject({});
/** Unknown query parameters are ignored (clients add cache-busters and tracking parameters). */
export const noQuery = z.object({});
/** Routes without a body accept none, or an empty JSON object (some clients always send `{}`). */
export const noBody = z.union([z.undefined(), z.strictObject({})], { error: 'This endpoint takes no request body' });
