import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../shared/platform/errors.js';
import { httpEvent, lambdaContext } from '../../../infra/testing/events.js';
import { runWith } from '../../../test/support/middleware.js';
import { errorHandler } from './error-handler.js';
import { requestIdHeader, requestIdOf } from './request-id.js';

describe('requestIdHeader', () => {
  it("puts API Gateway's request id on a response, keeping its other headers", async () => {
    const response = await runWith(requestIdHeader(), httpEvent(), async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(response.headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req-1' });
  });

  it('puts it on an error response too', async () => {
    const response = await runWith([requestIdHeader(), errorHandler('Failed')], httpEvent(), async () => {
      throw new NotFoundError('Thing not found');
    });
    expect(response).toMatchObject({ statusCode: 404, headers: { 'x-request-id': 'req-1' } });
  });

  it("falls back to the Lambda request id when the event has none (an event that did not come through API Gateway)", () => {
    const event = httpEvent();
    expect(requestIdOf(event, lambdaContext())).toBe('req-1');
    expect(requestIdOf({ ...event, requestContext: undefined } as never, lambdaContext())).toBe('aws-req-1');
  });
});
