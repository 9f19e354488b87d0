/** One HTTP middleware alone in a middy stack around a stub route handler, for the middlewares' own tests (functions/lib/middleware/). */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpMiddleware, HttpResult, ParsedRequest } from '../../functions/lib/middleware/types.js';
import { lambdaContext } from '../../infra/testing/events.js';

export function runWith(
  middlewares: HttpMiddleware | HttpMiddleware[],
  event: HttpEvent,
  handler: (event: HttpEvent, context: Context) => Promise<HttpResult> = async () => ({ statusCode: 200, body: '{}' }),
): Promise<HttpResult> {
  return middy<HttpEvent, HttpResult, Error, Context, ParsedRequest>().use(middlewares).handler(handler)(event, lambdaContext());
}
