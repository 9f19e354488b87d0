/** What every HTTP middleware handles: API Gateway's HTTP API (payload 2.0) event and result, and middy's request around them. */
import type middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

export type HttpEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** What the middlewares hand on to the ones after them, in middy's `request.internal`. */
export type ParsedRequest = {
  /** The JSON body (undefined when the request has none). */
  json?: unknown;
};

export type HttpRequest = middy.Request<HttpEvent, HttpResult, Error, Context, ParsedRequest>;
export type HttpMiddleware = MiddlewareObj<HttpEvent, HttpResult, Error, Context, ParsedRequest>;

const JSON_HEADERS = { 'content-type': 'application/json' };

export const jsonResponse = (statusCode: number, body: unknown): HttpResult => ({
  statusCode,
  headers: JSON_HEADERS,
  body: JSON.stringify(body),
});
