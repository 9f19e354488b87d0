/** The request id header: every response carries `x-request-id`, error responses too. */
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpMiddleware, HttpRequest } from './types.js';

/** The id a caller can quote: API Gateway's request id (also the `x-request-id` header). */
export const requestIdOf = (event: HttpEvent, context: Context) => event.requestContext?.requestId ?? context.awsRequestId;

export const requestIdHeader = (): HttpMiddleware => {
  const add = (request: HttpRequest) => {
    if (request.response) {
      request.response.headers = { ...request.response.headers, 'x-request-id': requestIdOf(request.event, request.context) };
    }
  };
  return { after: add, onError: add };
};
