/**
 * The HTTP handler factories every API route uses, each a middy stack of the middlewares in
 * `middleware/` (one a file, its test beside it):
 *   observability + x-request-id → JSON body parser → validator (zod) → route handler, the error handler last.
 *
 * A route handler is a single call into domain code; everything about events, status codes
 * and error bodies lives in the middlewares.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as z from '../../shared/platform/zod.js';
import type { Caller } from '../../shared/platform/caller.js';
import { UnauthorizedError } from '../../shared/platform/errors.js';
import { fieldErrors, noBody, noParams, noQuery } from '../../shared/platform/validation.js';
import { described } from '../../shared/platform/api/common.js';
import { errorHandler } from './middleware/error-handler.js';
import { htmlErrorHandler } from './middleware/html-error-handler.js';
import { httpObservability } from './middleware/http-observability.js';
import { requestIdOf } from './middleware/request-id.js';
import { idempotently } from './middleware/idempotency.js';
import { jsonBodyParser } from './middleware/json-body.js';
import { jsonResponse, type HttpEvent, type HttpResult, type ParsedRequest } from './middleware/types.js';
import { validatedInput, validator, type Schemas } from './middleware/validator.js';

export { fieldErrors, jsonResponse };
export type { HttpEvent, HttpResult };
export { MAX_BODY_BYTES } from './middleware/json-body.js';
export { htmlPage, type PageParts } from './html-page.js';

/** A non-empty string claim. */
function claimOf(claims: Record<string, string | number | boolean | string[]>, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The caller from the JWT claims the API Gateway authorizer verified. */
export function callerFrom(event: HttpEvent, context?: Context): Caller {
  const claims = event.requestContext.authorizer?.jwt?.claims ?? {};
  const userId = claimOf(claims, 'sub');
  if (!userId) throw new UnauthorizedError();
  const requestId = context ? requestIdOf(event, context) : event.requestContext?.requestId;
  return { userId, email: claimOf(claims, 'email'), name: claimOf(claims, 'name'), ...(requestId ? { requestId } : {}) };
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  caller: Caller;
}

/** Error texts a route may answer, by status (400 "Validation errors", 401, 413, 415, 500 are added). */
export type ErrorTexts = Partial<Record<400 | 403 | 404 | 409 | 410 | 429, string[]>>;

export interface RouteOptions<P extends z.ZodMiniType, Q extends z.ZodMiniType, B extends z.ZodMiniType, R extends z.ZodMiniType> {
  /** One line for the API reference. */
  summary: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Status of a successful response (200 unless given). */
  status?: number;
  /** The successful response body. */
  response: R;
  errors?: ErrorTexts;
  /** The error text of a 500 on this route, e.g. "Failed to fetch incident". */
  failure: string;
  /** A list page: its body carries `next_cursor`, and a next page is also linked (`Link: <…>; rel="next"`). */
  paged?: boolean;
  /** A creating POST that honours `Idempotency-Key`. */
  idempotent?: boolean;
  /**
   * The same answer as CSV (RFC 4180) for a request whose `Accept` prefers `text/csv`: its own domain call
   * (`render`), answered `text/csv; charset=utf-8`; documented beside the JSON form.
   */
  csv?: { description: string };
}

/** What a route promises, read by the OpenAPI generator (`infra/openapi/`). */
export interface RouteContract {
  summary: string;
  params?: z.ZodMiniType;
  query?: z.ZodMiniType;
  body?: z.ZodMiniType;
  status: number;
  response: z.ZodMiniType;
  contentType: 'application/json' | 'text/html' | 'text/calendar';
  errors: ErrorTexts;
  failure: string;
  paged: boolean;
  idempotent: boolean;
  /**
   * A raw route's answers, as documented (`rawRoute`): each status with its description, its JSON body
   * and the headers it carries; the generator writes these instead of deriving them.
   */
  responses?: RawResponses;
  /** Another form of the 200 answer, by content type, with its description (`RouteOptions.csv`). */
  alternatives?: Record<string, string>;
  /** A raw route's request body, as documented (it is parsed by the route itself, from its raw text). */
  requestBody?: { description: string; schema: z.ZodMiniType };
}

/** The answers of a raw route, by status. */
export type RawResponses = Record<number, { description: string; schema: z.ZodMiniType; headers?: Record<string, string> }>;

/**
 * RFC 8288 link to the next page: the request's own path and query with `cursor` set to
 * `next_cursor` (relative to the API's base, as API Gateway sees the request).
 */
export function nextPageLink(event: HttpEvent, nextCursor: unknown): Record<string, string> {
  if (typeof nextCursor !== 'string') return {};
  const query = new URLSearchParams(event.rawQueryString ?? '');
  query.set('cursor', nextCursor);
  const host = event.headers?.host;
  const base = host ? `${event.headers['x-forwarded-proto'] ?? 'https'}://${host}` : '';
  return { link: `<${base}${event.rawPath}?${query.toString()}>; rel="next"` };
}

/** The quality (`q`) an `Accept` header gives a media type, exactly or through a wildcard (RFC 9110 §12.5.1); 0 when it is absent. */
export function acceptQuality(accept: string | undefined, mediaType: string): number {
  if (!accept) return mediaType === 'application/json' ? 1 : 0;
  const [type] = mediaType.split('/');
  let best = { specificity: -1, q: 0 };
  for (const range of accept.split(',')) {
    const [name = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const specificity = name === mediaType ? 2 : name === `${type}/*` ? 1 : name === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q ? Number(q.slice(2)) : 1;
    best = { specificity, q: Number.isFinite(quality) ? quality : 0 };
  }
  return best.q;
}

/** Whether the request asks for CSV rather than JSON: `text/csv` ranked above `application/json` (a tie is JSON, the default form). */
export const prefersCsv = (event: HttpEvent): boolean => {
  const accept = event.headers?.accept;
  return acceptQuality(accept, 'text/csv') > acceptQuality(accept, 'application/json');
};

/** The route's domain call and its response: JSON with the route's status, a list page linking the next. */
async function respond<P, Q, B, R>(
  options: { status?: number; paged?: boolean },
  handle: (input: RouteInput<P, Q, B>) => Promise<R>,
  input: { params: P; query: Q; body: B },
  caller: Caller,
  event: HttpEvent,
): Promise<HttpResult> {
  const result = await handle({ ...input, caller });
  const response = jsonResponse(options.status ?? 200, result);
  if (!options.paged) return response;
  return { ...response, headers: { ...response.headers, ...nextPageLink(event, (result as { next_cursor?: unknown }).next_cursor) } };
}

/**
 * Builds a Lambda handler for one API route: the handler receives validated input and the
 * caller, makes one domain call and returns the response body.
 */
export function httpRoute<
  R extends z.ZodMiniType,
  P extends z.ZodMiniType = typeof noParams,
  Q extends z.ZodMiniType = typeof noQuery,
  B extends z.ZodMiniType = typeof noBody,
>(
  options: RouteOptions<P, Q, B, R>,
  handle: (input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<z.input<R>>,
  /** With `options.csv`: the CSV form's domain call. */
  renderCsv?: (input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<string>,
) {
  const schemas = {
    params: options.params ?? noParams,
    query: options.query ?? noQuery,
    body: options.body ?? noBody,
  } as Schemas<P, Q, B>;
  const handler = middy<HttpEvent, HttpResult, Error, Context, ParsedRequest>()
    .use(httpObservability())
    .use(jsonBodyParser())
    .use(validator(schemas))
    .use(errorHandler(options.failure))
    .handler(async (event, context) => {
      const input = validatedInput<z.output<P>, z.output<Q>, z.output<B>>(event);
      const caller = callerFrom(event, context);
      if (renderCsv && options.csv && prefersCsv(event)) {
        return { statusCode: options.status ?? 200, headers: { 'content-type': 'text/csv; charset=utf-8' }, body: await renderCsv({ ...input, caller }) };
      }
      return options.idempotent
        ? idempotently(event, caller, input.body, () => respond(options, handle, input, caller, event))
        : respond(options, handle, input, caller, event);
    });
  const contract: RouteContract = {
    summary: options.summary,
    params: options.params,
    query: options.query,
    body: options.body,
    status: options.status ?? 200,
    response: options.response,
    contentType: 'application/json',
    errors: options.errors ?? {},
    failure: options.failure,
    paged: options.paged ?? false,
    idempotent: options.idempotent ?? false,
    ...(options.csv ? { alternatives: { 'text/csv': options.csv.description } } : {}),
  };
  return Object.assign(handler, { contract });
}

/** The contract of a public route answering a document (a page, a calendar) on 200. */
const publicContract = (
  options: { summary: string; params: z.ZodMiniType; failure: string; errors?: ErrorTexts },
  contentType: RouteContract['contentType'],
  description: string,
): RouteContract => ({
  summary: options.summary,
  params: options.params,
  status: 200,
  response: described(z.string(), { description }),
  contentType,
  errors: options.errors ?? {},
  failure: options.failure,
  paged: false,
  idempotent: false,
});

/**
 * A public route (no JWT) answering an HTML page: validated path parameters in, one domain
 * call, a page out. Failures are pages too; causes are logged, never shown.
 */
export function publicHtmlRoute<P extends z.ZodMiniType>(
  options: { summary: string; params: P; failure: string; errors?: ErrorTexts },
  handle: (params: z.output<P>) => Promise<HttpResult>,
) {
  const contract = publicContract(options, 'text/html', 'A small HTML page');
  const handler = middy<HttpEvent, HttpResult, Error, Context, ParsedRequest>()
    .use(httpObservability())
    .use(validator({ params: options.params, query: noQuery, body: z.unknown() }))
    .use(htmlErrorHandler(options.failure))
    .handler(async (event) => handle(validatedInput<z.output<P>, unknown, unknown>(event).params));
  return Object.assign(handler, { contract });
}

/** What a raw route's handler gets: the body as text (decoded if the gateway base64-encoded it) and the headers. */
export interface RawRequest {
  body: string;
  headers: Record<string, string | undefined>;
  /** The path's `{param}` values, as the gateway matched them. */
  params: Record<string, string | undefined>;
}

/**
 * A public route that takes its body raw: no JWT, no JSON parser and no 64 KiB limit in front of it
 * (the route sets its own, and answers in a protocol's own words: PagerDuty's Events API, Alertmanager's
 * webhooks). Service errors are answered as every route answers them; anything else is logged and
 * answered with the route's 500 text and the request id.
 */
export function rawRoute(
  options: { summary: string; failure: string; requestBody: RouteContract['requestBody']; responses: RawResponses; status: number; params?: RouteContract['params'] },
  handle: (request: RawRequest) => Promise<HttpResult>,
) {
  const contract: RouteContract = {
    summary: options.summary,
    ...(options.params ? { params: options.params } : {}),
    status: options.status,
    response: options.responses[options.status]!.schema,
    contentType: 'application/json',
    errors: {},
    failure: options.failure,
    paged: false,
    idempotent: false,
    responses: options.responses,
    requestBody: options.requestBody,
  };
  const handler = middy<HttpEvent, HttpResult, Error, Context, ParsedRequest>()
    .use(httpObservability())
    .use(errorHandler(options.failure))
    .handler(async (event) => {
      const raw = event.body ?? '';
      const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      return handle({ body, headers: event.headers ?? {}, params: event.pathParameters ?? {} });
    });
  return Object.assign(handler, { contract });
}

/**
 * A public route (no JWT) answering an iCalendar document (a calendar app's subscription): validated path
 * parameters in, one domain call, the document out, never cached by a proxy (its URL holds a secret). Errors
 * are the API's JSON errors.
 */
export function publicCalendarRoute<P extends z.ZodMiniType>(
  options: { summary: string; params: P; failure: string; errors?: ErrorTexts },
  handle: (params: z.output<P>) => Promise<string>,
) {
  const contract = publicContract(options, 'text/calendar', 'An iCalendar document (RFC 5545)');
  const handler = middy<HttpEvent, HttpResult, Error, Context, ParsedRequest>()
    .use(httpObservability())
    .use(validator({ params: options.params, query: z.unknown(), body: z.unknown() }))
    .use(errorHandler(options.failure))
    .handler(async (event) => ({
      statusCode: 200,
      headers: { 'content-type': 'text/calendar; charset=utf-8', 'cache-control': 'private, no-store' },
      body: await handle(validatedInput<z.output<P>, unknown, unknown>(event).params),
    }));
  return Object.assign(handler, { contract });
}
