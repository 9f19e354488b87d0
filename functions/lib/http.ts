/**
 * The one HTTP handler stack every API route uses:
 *   JSON body parser → validation (zod) → handler → response, with the error handler last.
 *
 * A route handler is a single call into domain code; everything about events, status codes
 * and error bodies lives here.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import * as z from '../../shared/platform/zod.js';
import type { Caller } from '../../shared/platform/caller.js';
import {
  isServiceError,
  TooManyRequestsError,
  PayloadTooLargeError,
  type ServiceError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../shared/platform/errors.js';
import { claim, complete, parseIdempotencyKey, release, requestFingerprint } from '../../shared/platform/idempotency/service.js';
import { fieldErrors, noBody, noParams, noQuery } from '../../shared/platform/validation.js';
import { logger, observability } from './observability.js';
import { escapeHtml } from '../../shared/platform/html.js';
import { described } from '../../shared/platform/api/common.js';

export { fieldErrors };

export type HttpEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** Request bodies larger than this are refused with 413. */
export const MAX_BODY_BYTES = 64 * 1024;

type ParsedRequest = {
  /** The JSON body (undefined when the request has none). */
  json?: unknown;
};

/** Validated input, handed from the validator to the route handler. */
const validatedInput = new WeakMap<HttpEvent, { params: unknown; query: unknown; body: unknown }>();

type Request = middy.Request<HttpEvent, HttpResult, Error, Context, ParsedRequest>;

const JSON_HEADERS = { 'content-type': 'application/json' };

export const jsonResponse = (statusCode: number, body: unknown): HttpResult => ({
  statusCode,
  headers: JSON_HEADERS,
  body: JSON.stringify(body),
});

const isJsonContentType = (value: string | undefined) =>
  value !== undefined && /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(value.trim());

/** Decodes and parses the JSON body: 413 when too large, 415 when not JSON, 400 when malformed. */
const jsonBodyParser = (): MiddlewareObj<HttpEvent, HttpResult, Error, Context, ParsedRequest> => ({
  before: (request: Request) => {
    const { body, isBase64Encoded, headers } = request.event;
    if (body === undefined || body === '') return;
    const raw = isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
    if (raw.byteLength > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    if (!isJsonContentType(headers?.['content-type'])) throw new UnsupportedMediaTypeError();
    try {
      request.internal.json = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new ValidationError([{ field: 'body', message: 'Malformed JSON' }]);
    }
  },
});

interface Schemas<P extends z.ZodMiniType, Q extends z.ZodMiniType, B extends z.ZodMiniType> {
  params: P;
  query: Q;
  body: B;
}

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

/** Validates path parameters, query string and body together; all problems are reported at once. */
const validator = <P extends z.ZodMiniType, Q extends z.ZodMiniType, B extends z.ZodMiniType>(
  schemas: Schemas<P, Q, B>,
): MiddlewareObj<HttpEvent, HttpResult, Error, Context, ParsedRequest> => ({
  before: (request: Request) => {
    const params = parsePart(schemas.params, request.event.pathParameters, {});
    const query = parsePart(schemas.query, request.event.queryStringParameters, {});
    const body = parsePart(schemas.body, request.internal.json, undefined);
    const details = [
      ...(params.success ? [] : fieldErrors(params.error, 'path')),
      ...(query.success ? [] : fieldErrors(query.error, 'query')),
      ...(body.success ? [] : fieldErrors(body.error, 'body')),
    ];
    if (details.length > 0) throw new ValidationError(details);
    validatedInput.set(request.event, { params: params.data, query: query.data, body: body.data });
  },
});

/** The id a caller can quote: API Gateway's request id (also the `x-request-id` header). */
const requestIdOf = (event: HttpEvent, context: Context) => event.requestContext?.requestId ?? context.awsRequestId;

/** Every response carries `x-request-id`, error responses too. */
const requestIdHeader = (): MiddlewareObj<HttpEvent, HttpResult, Error, Context, ParsedRequest> => {
  const add = (request: Request) => {
    if (request.response) {
      request.response.headers = { ...request.response.headers, 'x-request-id': requestIdOf(request.event, request.context) };
    }
  };
  return { after: add, onError: add };
};

const describeHttp = (event: HttpEvent, response: HttpResult | undefined, context: Context) => {
  const sub = event.requestContext?.authorizer?.jwt?.claims?.sub;
  return {
    operation: event.routeKey,
    requestId: requestIdOf(event, context),
    callerId: typeof sub === 'string' ? sub : undefined,
    status: response?.statusCode,
  };
};

/** The outer middlewares of every HTTP route: observability, then the request id header. */
const httpObservability = () => [
  ...observability<HttpEvent, HttpResult>(describeHttp),
  requestIdHeader(),
] as MiddlewareObj<HttpEvent, HttpResult, Error, Context, ParsedRequest>[];

/**
 * The last middleware: typed service errors become `{error, details?}` with their status;
 * anything else is logged with its cause and answered with the route's generic 500 text and
 * the request id to quote.
 */
const errorHandler = (
  failureMessage: string,
): MiddlewareObj<HttpEvent, HttpResult, Error, Context, ParsedRequest> => ({
  onError: (request: Request) => {
    const { error } = request;
    if (isServiceError(error)) {
      request.response = serviceErrorResponse(error);
      return;
    }
    const requestId = requestIdOf(request.event, request.context);
    logger.error(failureMessage, { request_id: requestId, route: request.event.routeKey, error: error as Error });
    request.response = jsonResponse(500, { error: failureMessage, request_id: requestId });
  },
});

/** A typed service error as its response: `{error, details?}` with its status. */
const serviceErrorResponse = (error: ServiceError): HttpResult => {
  if (error instanceof TooManyRequestsError) {
    // As API Gateway's own 429 (`{"message"}`), so a client reads every 429 alike.
    const response = jsonResponse(429, { message: error.message });
    return { ...response, headers: { ...response.headers, 'retry-after': String(error.retryAfterSeconds) } };
  }
  return jsonResponse(error.statusCode, { error: error.message, ...(error.details ? { details: error.details } : {}) });
};

/**
 * Runs a creating route once per `Idempotency-Key` (when the request has one): a repeat with the
 * same key and request gets the first success again, marked `Idempotent-Replayed: true`. Only a
 * success is kept, the one answer a retry could never change (what it created exists); a refusal
 * (404, 403, 400, 409, 429: each depends on what exists, who belongs where or what is left of a
 * quota) and an unexpected failure give the key up, so a retry runs again.
 */
async function idempotently(event: HttpEvent, caller: Caller, body: unknown, run: () => Promise<HttpResult>): Promise<HttpResult> {
  const key = parseIdempotencyKey(event.headers?.['idempotency-key']);
  if (key === undefined) return run();
  const outcome = await claim(caller.userId, key, requestFingerprint(event.routeKey, event.rawPath, body));
  if (!outcome.run) {
    return { statusCode: outcome.answer.status, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' }, body: outcome.answer.body };
  }
  let response: HttpResult;
  try {
    response = await run();
  } catch (error) {
    await release(outcome.held);
    throw error;
  }
  const status = response.statusCode ?? 200;
  if (status >= 200 && status < 300) await complete(outcome.held, { status, body: String(response.body ?? '') });
  else await release(outcome.held);
  return response;
}

/** A non-empty string claim. */
function claimOf(claims: Record<string, string | number | boolean | string[]>, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The caller from the JWT claims the API Gateway authorizer verified. */
export function callerFrom(event: HttpEvent): Caller {
  const claims = event.requestContext.authorizer?.jwt?.claims ?? {};
  const userId = claimOf(claims, 'sub');
  if (!userId) throw new UnauthorizedError();
  return { userId, email: claimOf(claims, 'email'), name: claimOf(claims, 'name') };
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
   * The success body as this route answers it, for the OpenAPI document, where the response
   * schema's own example is not a state this route can answer (a created incident is never
   * acknowledged; an acknowledged one always is).
   */
  example?: z.output<R>;
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
  example?: unknown;
  /**
   * A raw route's answers, as documented (`rawRoute`): each status with its description, its JSON body
   * and the headers it carries; the generator writes these instead of deriving them.
   */
  responses?: RawResponses;
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
    .handler(async (event) => {
      const input = validatedInput.get(event) as { params: z.output<P>; query: z.output<Q>; body: z.output<B> };
      const caller = callerFrom(event);
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
    ...(options.example === undefined ? {} : { example: options.example }),
  };
  return Object.assign(handler, { contract });
}

/** What a page may show besides its title and message: labelled facts, and one button that POSTs back to the page's own URL. */
export interface PageParts {
  facts?: [string, string][];
  button?: string;
}

/**
 * A small self-contained HTML page (public links opened in a browser: unsubscribe, acknowledge).
 * The URL holds a secret token, so the page is never cached, never sends a referrer and loads nothing.
 */
export function htmlPage(statusCode: number, title: string, message: string, parts: PageParts = {}): HttpResult {
  const facts = parts.facts?.length
    ? `<table>${parts.facts.map(([label, value]) => `<tr><th align="left" style="padding-right:1em">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`
    : '';
  const button = parts.button
    ? `<form method="post"><button type="submit" style="font-size:1rem;padding:.6em 1.2em;margin-top:1em">${escapeHtml(parts.button)}</button></form>`
    : '';
  return {
    statusCode,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2937}h1{font-size:1.4rem}</style></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${facts}${button}</body></html>`,
  };
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
    .use({
      onError: (request: Request) => {
        if (isServiceError(request.error)) {
          request.response = htmlPage(request.error.statusCode, 'This link is not valid', 'Check that you copied the whole link.');
          return;
        }
        logger.error(options.failure, { request_id: requestIdOf(request.event, request.context), error: request.error as Error });
        request.response = htmlPage(500, options.failure, 'Please try again in a moment.');
      },
    })
    .handler(async (event) => handle((validatedInput.get(event) as { params: z.output<P> }).params));
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
      body: await handle((validatedInput.get(event) as { params: z.output<P> }).params),
    }));
  return Object.assign(handler, { contract });
}
