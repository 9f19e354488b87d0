import { z } from 'zod';

/** Path parameters of a resource addressed by id. */
export const idParams = z.strictObject({ id: z.uuid() });

/** Request schemas for routes that take no input of that kind. */
export const noParams = z.strictObject({});
/** Unknown query parameters are ignored (clients add cache-busters and tracking parameters). */
export const noQuery = z.object({});
export const noBody = z.undefined({ error: 'This endpoint takes no request body' });
