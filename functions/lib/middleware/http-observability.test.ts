import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotFoundError } from '../../../shared/platform/errors.js';
import { httpEvent } from '../../../infra/testing/events.js';
import { runWith } from '../../../test/support/middleware.js';
import { logger } from '../observability.js';
import { errorHandler } from './error-handler.js';
import { httpObservability } from './http-observability.js';

afterEach(() => vi.restoreAllMocks());

describe('httpObservability', () => {
  it('logs one line per request with the route key, the status, the request id and the caller, and sets x-request-id', async () => {
    const info = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    const event = httpEvent({ routeKey: 'GET /api/things/{id}' });
    const response = await runWith(httpObservability(), event, async () => ({ statusCode: 200, body: '{}' }));
    expect(response.headers).toEqual({ 'x-request-id': 'req-1' });
    expect(info).toHaveBeenCalledTimes(1);
    expect(info).toHaveBeenCalledWith(
      'invocation',
      expect.objectContaining({ operation: 'GET /api/things/{id}', status: 200, request_id: 'req-1', caller_id: '11111111-1111-4111-8111-111111111111' }),
    );
  });

  it('logs the status the error handler answered, once', async () => {
    const info = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    const response = await runWith([...httpObservability(), errorHandler('Failed')], httpEvent(), async () => {
      throw new NotFoundError('Thing not found');
    });
    expect(response).toMatchObject({ statusCode: 404, headers: { 'x-request-id': 'req-1' } });
    expect(info).toHaveBeenCalledTimes(1);
    expect(info).toHaveBeenCalledWith('invocation', expect.objectContaining({ status: 404 }));
  });
});
