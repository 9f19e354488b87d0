/** The outer middlewares of every HTTP route: the log line, metrics and trace of the invocation (`../observability.ts`), then the request id header. */
import type { Context } from 'aws-lambda';
import { observability } from '../observability.js';
import { requestIdHeader, requestIdOf } from './request-id.js';
import type { HttpEvent, HttpMiddleware, HttpResult } from './types.js';

/** What the log line says of an HTTP invocation: the route key (never the raw path), the request id, the caller, the status. */
const describeHttp = (event: HttpEvent, response: HttpResult | undefined, context: Context) => {
  const sub = event.requestContext?.authorizer?.jwt?.claims?.sub;
  return {
    operation: event.routeKey,
    requestId: requestIdOf(event, context),
    callerId: typeof sub === 'string' ? sub : undefined,
    status: response?.statusCode,
  };
};

export const httpObservability = () => [...observability<HttpEvent, HttpResult>(describeHttp), requestIdHeader()] as HttpMiddleware[];
