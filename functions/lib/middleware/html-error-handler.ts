/**
 * The error handler of a public page route (a link opened in a browser): failures are pages too. A
 * service error is "This link is not valid" with its status; anything else is logged with its cause
 * and answered with the route's 500 text as a page, the cause never shown.
 */
import { isServiceError } from '../../../shared/platform/errors.js';
import { htmlPage } from '../html-page.js';
import { logger } from '../observability.js';
import { requestIdOf } from './request-id.js';
import type { HttpMiddleware, HttpRequest } from './types.js';

export const htmlErrorHandler = (failureMessage: string): HttpMiddleware => ({
  onError: (request: HttpRequest) => {
    if (isServiceError(request.error)) {
      request.response = htmlPage(request.error.statusCode, 'This link is not valid', 'Check that you copied the whole link.');
      return;
    }
    logger.error(failureMessage, { request_id: requestIdOf(request.event, request.context), error: request.error as Error });
    request.response = htmlPage(500, failureMessage, 'Please try again in a moment.');
  },
});
