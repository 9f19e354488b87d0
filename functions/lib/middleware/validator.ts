/** The validator: path parameters, query string and body checked with the route's zod schemas, all problems reported at once (400). */
import { ValidationError } from '../../../shared/platform/errors.js';
import { fieldErrors, noBody, noParams, noQuery } from '../../../shared/platform/validation.js';
import type * as z from '../../../shared/platform/zod.js';
import type { HttpEvent, HttpMiddleware, HttpRequest } from './types.js';

export interface Schemas<P extends z.ZodMiniType, Q extends z.ZodMiniType, B extends z.ZodMiniType> {
  params: P;
  query: Q;
  body: B;
}

/** Validated input, handed from the validator to the route handler. */
const validated = new WeakMap<HttpEvent, { params: unknown; query: unknown; body: unknown }>();

/** The input the validator passed for this event (the route handler's to read). */
export const validatedInput = <P, Q, B>(event: HttpEvent) => validated.get(event) as { params: P; query: Q; body: B };

/**
 * What a route that takes no path parameters, query string or body makes of one it is not given:
 * known without running zod (most GETs have no query string and no body).
 */
const NOT_TAKEN_NOT_GIVEN = new Map<z.ZodMiniType, { success: true; data: unknown }>([
  // Shared by every request, so frozen.
  [noParams, { success: true, data: Object.freeze({}) }],
  [noQuery, { success: true, data: Object.freeze({}) }],
  [noBody, { success: true, data: undefined }],
]);

/** One part of a request, validated; `absent` is what zod checks when the request has none (`{}` for parameters). */
const parsePart = (schema: z.ZodMiniType, value: unknown, absent: unknown) =>
  value === undefined ? (NOT_TAKEN_NOT_GIVEN.get(schema) ?? schema.safeParse(absent)) : schema.safeParse(value);

/** Validates path parameters, query string and the parsed body (`request.internal.json`) together. */
export const validator = <P extends z.ZodMiniType, Q extends z.ZodMiniType, B extends z.ZodMiniType>(schemas: Schemas<P, Q, B>): HttpMiddleware => ({
  before: (request: HttpRequest) => {
    const params = parsePart(schemas.params, request.event.pathParameters, {});
    const query = parsePart(schemas.query, request.event.queryStringParameters, {});
    const body = parsePart(schemas.body, request.internal.json, undefined);
    const details = [
      ...(params.success ? [] : fieldErrors(params.error, 'path')),
      ...(query.success ? [] : fieldErrors(query.error, 'query')),
      ...(body.success ? [] : fieldErrors(body.error, 'body')),
    ];
    if (details.length > 0) throw new ValidationError(details);
    validated.set(request.event, { params: params.data, query: query.data, body: body.data });
  },
});
