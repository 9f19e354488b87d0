/**
 * The error handler, last in every JSON route's stack: a service error (a class with `statusCode` and
 * `expose`, `shared/platform/errors.ts`) becomes `{error, details?}` with its status; anything else is
 * logged with its cause and answered with the route's generic 500 text and the request id to quote.
 */
import { isServiceError, TooManyRequestsError, type ServiceError } from '../../../shared/platform/errors.js';
import { logger } from '../observability.js';
import { requestIdOf } from './request-id.js';
import { jsonResponse, type HttpMiddleware, type HttpRequest, type HttpResult } from './types.js';

/** A service error as its response: `{error, details?}` with its status. */
export const serviceErrorResponse = (error: ServiceError): HttpResult => {
  if (error instanceof TooManyRequestsError) {
    // As API Gateway's own 429 (`{"message"}`), so a client reads every 429 alike.
    const response = jsonResponse(429, { message: error.message });
    return { ...response, headers: { ...response.headers, 'retry-after': String(error.retryAfterSeconds) } };
  }
  return jsonResponse(error.statusCode, { error: error.message, ...(error.details ? { details: error.details } : {}) });
};

/** `failureMessage`: the route's 500 text, e.g. "Failed to fetch incident". */
export const errorHandler = (failureMessage: string): HttpMiddleware => ({
  onError: (request: HttpRequest) => {
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
