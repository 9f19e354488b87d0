/**
 * A local API Gateway (HTTP API, payload format 2.0) with a JWT authorizer. Each request is
 * matched against the route table, authorized, turned into the event API Gateway would send,
 * and handed to the very handler module Lambda runs.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { JWTPayload } from 'jose';
import type { RouteDescription } from '../../../shared/system.js';
import { invoke, type LambdaHandler } from './functions.js';
import type { LocalIssuer } from './jwt.js';
import type { AwsApis } from './aws-apis.js';
import { matchRoute } from './routing.js';
import { computedOnce } from './memo.js';
import { corsHeaders, isPreflight, preflightHeaders, type CorsOrigins } from './cors.js';

/** A local-only endpoint (never deployed): plain JSON in and out (or an HTML form in), no authorizer. */
export interface LocalEndpoint {
  method: string;
  path: string;
  /**
   * How the body is read: JSON (the default; malformed JSON is answered 400 here), or an HTML form's
   * fields (`application/x-www-form-urlencoded`: a URLSearchParams; any other body is undefined).
   */
  body?: 'json' | 'form';
  /** JSON out, unless a content type is given (then the body is sent as is); `headers` are added to the answer. */
  handle(input: {
    body: unknown;
    params: Record<string, string>;
    query: URLSearchParams;
    headers: IncomingHttpHeaders;
  }): Promise<{ status: number; body: unknown; contentType?: string; headers?: Record<string, string | string[]> }>;
}

export interface GatewayOptions {
  routes: readonly RouteDescription[];
  issuer: LocalIssuer;
  loadHandler(route: RouteDescription): Promise<LambdaHandler>;
  localEndpoints?: readonly LocalEndpoint[];
  /** Local stand-ins for AWS APIs (PutEvents, Scheduler, Lambda Invoke), tried first. */
  awsApis?: AwsApis;
  /**
   * Whether the verified token's subject may call the API (locally: has signed up). A refused
   * subject gets 401 as if the token were invalid. Omitted: every verified token passes.
   */
  admits?(subject: string): boolean | Promise<boolean>;
  /**
   * The origins browsers may call the API from (the console's), answered as API Gateway answers with
   * the system description's CORS configuration (`cors.ts`). Omitted: none (no CORS, as on AWS by default).
   */
  corsOrigins?: CorsOrigins;
}

const EMPTY = Buffer.alloc(0);
/** The claims of a public route's request (no authorizer). */
const NO_CLAIMS: JWTPayload = Object.freeze({});

/** API Gateway's own payload limit. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

class GatewayError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The whole body, or a 413 once it passes the limit. Past the limit the rest is read and dropped
 * (not cut off), so the client gets to read the 413 before the connection closes (`answerAndLinger`).
 */
function readBody(request: IncomingMessage): Promise<Buffer> | Buffer {
  // Neither a length nor chunks: the request has no body (a GET, mostly), and nothing to wait for.
  if (request.headers['transfer-encoding'] === undefined && (request.headers['content-length'] ?? '0') === '0') {
    request.resume();
    return EMPTY;
  }
  return new Promise((resolve, reject) => {
    const tooLarge = () => {
      request.removeAllListeners('data');
      request.resume();
      reject(new GatewayError(413, 'Request Entity Too Large'));
    };
    if (Number(request.headers['content-length']) > GATEWAY_MAX_BODY_BYTES) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > GATEWAY_MAX_BODY_BYTES) return tooLarge();
      chunks.push(chunk);
    });
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/**
 * How long the rest of a refused body is read and dropped after the answer, in all and with nothing
 * arriving, before the connection is cut anyway (nginx's lingering_time and lingering_timeout).
 */
export const LINGER_MS = 30_000;
export const LINGER_IDLE_MS = 5_000;

/**
 * Answers a request refused before its body was read (a 413), then closes the connection only once
 * the client has sent the rest. Closing a socket with data still coming makes the kernel answer with a
 * reset, and a client still writing its body (most write it all before they read) then loses the
 * answer it was sent: so the answer goes out whole at once (its length says where it ends), the body
 * is read and dropped to its end, and only then does the response end and the connection close.
 */
function answerAndLinger(request: IncomingMessage, response: ServerResponse, requestId: string, status: number, message: string) {
  const body = JSON.stringify({ message });
  response.writeHead(status, lengthOf(status, body, { 'content-type': 'application/json', 'apigw-requestid': requestId, 'x-request-id': requestId, connection: 'close' }));
  response.write(body);
  const close = () => {
    clearTimeout(total);
    clearTimeout(idle);
    request.off('data', quiet);
    request.off('end', close);
    request.off('error', cut);
    request.off('close', close);
    response.end();
  };
  // A client that never finishes its body loses the connection, as it would on API Gateway.
  const cut = () => {
    close();
    request.socket.destroy();
  };
  const total = setTimeout(cut, LINGER_MS);
  let idle = setTimeout(cut, LINGER_IDLE_MS);
  const quiet = () => {
    clearTimeout(idle);
    idle = setTimeout(cut, LINGER_IDLE_MS);
  };
  if (request.readableEnded) return close();
  request.on('data', quiet);
  request.once('end', close);
  request.once('close', close);
  request.once('error', cut);
  request.resume();
}

const isTextual = (contentType: string | undefined) =>
  !contentType || /^(text\/|application\/([\w.+-]+\+)?(json|xml|x-www-form-urlencoded|javascript))/i.test(contentType);

/** JWT claims as the HTTP API authorizer passes them: every value a string. */
const claimStrings = (payload: JWTPayload): Record<string, string> =>
  Object.fromEntries(
    Object.entries(payload).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : Array.isArray(value) ? `[${value.join(' ')}]` : String(value),
    ]),
  );

function buildEvent(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  route: RouteDescription,
  params: Record<string, string>,
  claims: Record<string, string>,
  requestId: string,
): APIGatewayProxyEventV2WithJWTAuthorizer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // As API Gateway does: the scheme the client used.
  headers['x-forwarded-proto'] = 'http';
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const textual = isTextual(headers['content-type']);
  const routeKey = `${route.method} ${route.path}`;
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: request.headers.cookie?.split(/;\s*/),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(params).length ? params : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: { principalId: '', integrationLatency: 0, jwt: { claims, scopes: [] } },
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: route.method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? body.toString(textual ? 'utf8' : 'base64') : undefined,
    isBase64Encoded: body.length > 0 && !textual,
  };
}

/** The gateway's own answers carry the request id twice, as API Gateway's (`apigw-requestid`) and as the service's (`x-request-id`). */
function send(response: ServerResponse, requestId: string, status: number, body: string | Buffer, headers: Record<string, string | string[]> = {}) {
  response.writeHead(status, lengthOf(status, body, { 'content-type': 'application/json', 'apigw-requestid': requestId, 'x-request-id': requestId, ...headers }));
  response.end(body);
}

/**
 * As API Gateway answers: with the body's length, not chunked (and so in one write with the head).
 * A status that has no body (1xx, 204, 304) carries none.
 */
function lengthOf<H extends Record<string, string | string[]>>(status: number, body: string | Buffer, headers: H): H {
  if (status < 200 || status === 204 || status === 304) return headers;
  return { ...headers, 'content-length': String(Buffer.byteLength(body)) };
}

/** The token of an Authorization header: `Bearer <token>`, or a bare token, as API Gateway takes it. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const value = authorization?.trim();
  if (!value) return undefined;
  const [first, ...rest] = value.split(/\s+/);
  if (rest.length === 0) return /^bearer$/i.test(first!) ? undefined : first;
  return /^bearer$/i.test(first!) && rest.length === 1 ? rest[0] : undefined;
}

/** API Gateway's challenge on a 401: why the token was refused, when there was one. */
const challenge = (description?: string) => ({
  'www-authenticate': description ? `Bearer scope="" error="invalid_token" error_description="${description}"` : 'Bearer',
});

/** The authorizer's 401. */
const refuse = (response: ServerResponse, requestId: string, description?: string) =>
  send(response, requestId, 401, JSON.stringify({ message: 'Unauthorized' }), challenge(description));

/** Payload format 2.0: a structured result is used as is; anything else is a 200 JSON body. */
function writeResult(response: ServerResponse, result: unknown, requestId: string, corsConfigured: boolean) {
  const structured =
    typeof result === 'object' && result !== null && 'statusCode' in result
      ? (result as APIGatewayProxyStructuredResultV2)
      : { statusCode: 200, body: JSON.stringify(result), headers: { 'content-type': 'application/json' } };
  const headers: Record<string, string | string[]> = { 'apigw-requestid': requestId, 'x-request-id': requestId };
  for (const [name, value] of Object.entries(structured.headers ?? {})) {
    const lower = name.toLowerCase();
    // With CORS configured, API Gateway ignores the CORS headers an integration returns.
    if (!corsConfigured || !lower.startsWith('access-control-')) headers[lower] = String(value);
  }
  if (structured.cookies?.length) headers['set-cookie'] = structured.cookies;
  const text = structured.body ?? '';
  const body = structured.isBase64Encoded ? Buffer.from(text, 'base64') : text;
  const status = structured.statusCode ?? 200;
  response.writeHead(status, lengthOf(status, body, headers));
  response.end(body);
}

export function createGateway(options: GatewayOptions): Server {
  const handlers = new Map<string, Promise<LambdaHandler>>();
  /** The handlers loaded so far, at hand without an await. */
  const loadedHandlers = new Map<string, LambdaHandler>();
  const handlerFor = (route: RouteDescription) =>
    computedOnce(handlers, route.name, () =>
      options.loadHandler(route).then((loaded) => {
        loadedHandlers.set(route.name, loaded);
        return loaded;
      }),
    );

  // The claims as strings, once per verified token (the issuer hands the same claims object back).
  // Shared by this token's requests: frozen, so no handler can change another's event.
  const claimsAsStrings = new WeakMap<JWTPayload, Record<string, string>>();
  const stringClaims = (claims: JWTPayload) => computedOnce(claimsAsStrings, claims, () => Object.freeze(claimStrings(claims)));

  return createServer((request, response) => {
    const requestId = randomUUID();
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const method = request.method ?? 'GET';
      // CORS as API Gateway's configuration answers it: a preflight before any route (every path has
      // one), and an allowed origin's headers on every answer, whoever writes it.
      const origin = request.headers.origin;
      if (origin !== undefined && options.corsOrigins) {
        if (isPreflight(method, request.headers)) {
          request.resume();
          return send(response, requestId, 204, EMPTY, preflightHeaders(origin, options.corsOrigins));
        }
        for (const [name, value] of Object.entries(corsHeaders(origin, options.corsOrigins))) response.setHeader(name, value);
      }
      try {
        // What is at hand already is not awaited: every await is a turn of the microtask queue.
        const body = readBody(request);
        const raw = body instanceof Promise ? await body : body;
        const apiAnswer = options.awsApis?.(request, url, raw);
        const aws = apiAnswer && (await apiAnswer);
        if (aws) {
          response.writeHead(aws.status, aws.headers ?? {});
          return response.end(aws.body);
        }
        const local = options.localEndpoints && matchRoute(options.localEndpoints, method, url.pathname);
        if (local) {
          let body: unknown;
          if (local.route.body === 'form') {
            const form = /^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers['content-type'] ?? '');
            body = form ? new URLSearchParams(raw.toString('utf8')) : undefined;
          } else {
            try {
              body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
            } catch {
              return send(response, requestId, 400, JSON.stringify({ error: 'Malformed JSON' }));
            }
          }
          const result = await local.route.handle({ body, params: local.params, query: url.searchParams, headers: request.headers });
          if (result.contentType) {
            return send(response, requestId, result.status, result.body as string | Buffer, { ...result.headers, 'content-type': result.contentType });
          }
          return send(response, requestId, result.status, JSON.stringify(result.body), result.headers);
        }

        const match = matchRoute(options.routes, method, url.pathname);
        if (!match) return send(response, requestId, 404, JSON.stringify({ message: 'Not Found' }));

        let claims: JWTPayload = NO_CLAIMS;
        if (match.route.auth !== 'none') {
          const token = bearerToken(request.headers.authorization);
          if (!token) return refuse(response, requestId);
          const verifying = options.issuer.verify(token);
          const verified = verifying instanceof Promise ? await verifying : verifying;
          if ('refused' in verified) return refuse(response, requestId, verified.refused);
          // A token without a subject goes on to the handler, which answers it (as on AWS).
          const subject = verified.claims.sub;
          const admitting = subject && options.admits ? options.admits(subject) : true;
          if (!(admitting instanceof Promise ? await admitting : admitting)) return refuse(response, requestId, "the token's user has not signed up");
          claims = verified.claims;
        }

        const event = buildEvent(request, url, raw, match.route, match.params, stringClaims(claims), requestId);
        const handler = loadedHandlers.get(match.route.name) ?? (await handlerFor(match.route));
        let result: unknown;
        try {
          result = await invoke(handler, match.route.name, event, requestId);
        } catch (error) {
          console.error(`[${match.route.name}] invocation failed`, error);
          return send(response, requestId, 500, JSON.stringify({ message: 'Internal Server Error' }));
        }
        writeResult(response, result, requestId, options.corsOrigins !== undefined);
      } catch (error) {
        if (error instanceof GatewayError) {
          // The rest of the body is drained, not parsed: close the connection (once drained) rather than reuse it.
          return answerAndLinger(request, response, requestId, error.status, error.message);
        }
        console.error('local gateway failure', error);
        if (!response.headersSent) send(response, requestId, 500, JSON.stringify({ message: 'Internal Server Error' }));
      }
    })();
  });
}
