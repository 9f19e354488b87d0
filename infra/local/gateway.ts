/**
 * A local API Gateway (HTTP API, payload format 2.0) with a JWT authorizer. Each request is
 * matched against the route table, authorized, turned into the event API Gateway would send,
 * and handed to the very handler module Lambda runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type { JWTPayload } from 'jose';
import { functionDefaults, type RouteDescription } from '../system.js';
import type { LocalIssuer } from './jwt.js';
import type { AwsApis } from './aws-apis.js';
import { matchRoute } from './routing.js';

export type LambdaHandler = (event: never, context: Context) => Promise<unknown>;

/** Which function invocation the current async work belongs to (for per-invocation measurements). */
export const invocationScope = new AsyncLocalStorage<{ functionName: string; requestId: string }>();

/** Runs `handler` as one invocation of `functionName`. */
export function invoke(handler: LambdaHandler, functionName: string, event: unknown, requestId = randomUUID()) {
  const context = lambdaContext(functionName, requestId, functionDefaults.timeoutSeconds);
  return invocationScope.run({ functionName, requestId }, () => handler(event as never, context));
}

/** A local-only endpoint (never deployed): plain JSON in and out, no authorizer. */
export interface LocalEndpoint {
  method: string;
  path: string;
  /** JSON out, unless a content type is given (then the body is sent as is). */
  handle(input: { body: unknown; params: Record<string, string> }): Promise<{ status: number; body: unknown; contentType?: string }>;
}

export interface GatewayOptions {
  routes: readonly RouteDescription[];
  issuer: LocalIssuer;
  loadHandler(route: RouteDescription): Promise<LambdaHandler>;
  localEndpoints?: readonly LocalEndpoint[];
  /** Local stand-ins for AWS APIs (PutEvents, Scheduler, Lambda Invoke), tried first. */
  awsApis?: AwsApis;
}

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

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BODY_BYTES) throw new GatewayError(413, 'Request Entity Too Large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const isTextual = (contentType: string | undefined) =>
  !contentType || /^(text\/|application\/([\w.+-]+\+)?(json|xml|x-www-form-urlencoded|javascript))/i.test(contentType);

/** JWT claims as the HTTP API authorizer passes them: every value a string. */
const claimStrings = (payload: JWTPayload) =>
  Object.fromEntries(
    Object.entries(payload).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : Array.isArray(value) ? `[${value.join(' ')}]` : String(value),
    ]),
  );

export function lambdaContext(functionName: string, requestId: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(functionDefaults.memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

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

function send(response: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
}

/** Payload format 2.0: a structured result is used as is; anything else is a 200 JSON body. */
function writeResult(response: ServerResponse, result: unknown, requestId: string) {
  const structured =
    typeof result === 'object' && result !== null && 'statusCode' in result
      ? (result as APIGatewayProxyStructuredResultV2)
      : { statusCode: 200, body: JSON.stringify(result), headers: { 'content-type': 'application/json' } };
  const headers: Record<string, string | string[]> = { 'apigw-requestid': requestId };
  for (const [name, value] of Object.entries(structured.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (structured.cookies?.length) headers['set-cookie'] = structured.cookies;
  const body = structured.body ?? '';
  response.writeHead(structured.statusCode ?? 200, headers);
  response.end(structured.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

export function createGateway(options: GatewayOptions): Server {
  const handlers = new Map<string, Promise<LambdaHandler>>();
  const handlerFor = (route: RouteDescription) => {
    let handler = handlers.get(route.name);
    if (!handler) {
      handler = options.loadHandler(route);
      handlers.set(route.name, handler);
    }
    return handler;
  };

  return createServer((request, response) => {
    const requestId = randomUUID();
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const method = request.method ?? 'GET';
      try {
        const raw = await readBody(request);
        const aws = await options.awsApis?.(request, url, raw);
        if (aws) {
          response.writeHead(aws.status, aws.headers ?? {});
          return response.end(aws.body);
        }
        const local = options.localEndpoints && matchRoute(options.localEndpoints, method, url.pathname);
        if (local) {
          let body: unknown;
          try {
            body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
          } catch {
            return send(response, 400, JSON.stringify({ error: 'Malformed JSON' }));
          }
          const result = await local.route.handle({ body, params: local.params });
          if (result.contentType) {
            return send(response, result.status, result.body as string | Buffer, { 'content-type': result.contentType });
          }
          return send(response, result.status, JSON.stringify(result.body));
        }

        const match = matchRoute(options.routes, method, url.pathname);
        if (!match) return send(response, 404, JSON.stringify({ message: 'Not Found' }));

        let claims: JWTPayload = {};
        if (match.route.auth !== 'none') {
          const authorization = request.headers.authorization ?? '';
          const token = /^Bearer (.+)$/i.exec(authorization)?.[1]?.trim();
          const verified = token ? await options.issuer.verify(token) : undefined;
          if (!verified) return send(response, 401, JSON.stringify({ message: 'Unauthorized' }), { 'www-authenticate': 'Bearer' });
          claims = verified;
        }

        const event = buildEvent(request, url, raw, match.route, match.params, claimStrings(claims), requestId);
        const handler = await handlerFor(match.route);
        let result: unknown;
        try {
          result = await invoke(handler, match.route.name, event, requestId);
        } catch (error) {
          console.error(`[${match.route.name}] invocation failed`, error);
          return send(response, 500, JSON.stringify({ message: 'Internal Server Error' }));
        }
        writeResult(response, result, requestId);
      } catch (error) {
        if (error instanceof GatewayError) return send(response, error.status, JSON.stringify({ message: error.message }));
        console.error('local gateway failure', error);
        if (!response.headersSent) send(response, 500, JSON.stringify({ message: 'Internal Server Error' }));
      }
    })();
  });
}
