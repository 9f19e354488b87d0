/** API Gateway HTTP API (payload 2.0) event fixtures carrying JWT claims, for unit tests of the handler stack. */
import type { Context } from 'aws-lambda';
import type { HttpEvent } from '../../functions/lib/http.js';
import { lambdaContext as localContext } from '../local/aws/functions.js';

export interface EventOptions {
  routeKey?: string;
  sub?: string | null;
  body?: string;
  contentType?: string;
  pathParameters?: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  isBase64Encoded?: boolean;
}

export function httpEvent(options: EventOptions = {}): HttpEvent {
  const routeKey = options.routeKey ?? 'POST /api/test';
  const [method = 'POST', path = '/'] = routeKey.split(' ');
  const claims: Record<string, string> = { iss: 'test', aud: 'test' };
  if (options.sub !== null) claims.sub = options.sub ?? '11111111-1111-4111-8111-111111111111';
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: options.contentType === undefined ? { 'content-type': 'application/json' } : { 'content-type': options.contentType },
    queryStringParameters: options.queryStringParameters,
    pathParameters: options.pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      authorizer: { principalId: '', integrationLatency: 0, jwt: { claims, scopes: [] } },
      domainName: 'test',
      domainPrefix: 'test',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'req-1',
      routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: options.body,
    isBase64Encoded: options.isBase64Encoded ?? false,
  };
}

/** The Lambda context the local runtime builds, for a function named `test`. */
export const lambdaContext = (): Context => localContext('test', 'aws-req-1', 10);
