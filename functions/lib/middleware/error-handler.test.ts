import { afterEach, describe, expect, it, vi } from 'vitest';
import { BadRequestError, ConflictError, NotFoundError, TooManyRequestsError } from '../../../shared/platform/errors.js';
import { httpEvent } from '../../../infra/testing/events.js';
import { runWith } from '../../../test/support/middleware.js';
import { logger } from '../observability.js';
import { errorHandler } from './error-handler.js';

const failWith = (error: unknown) =>
  runWith(errorHandler('Failed to create thing'), httpEvent(), async () => {
    throw error;
  });
const parse = (result: { statusCode?: number; body?: string }) => ({ status: result.statusCode, body: JSON.parse(result.body ?? '') });

afterEach(() => vi.restoreAllMocks());

describe('errorHandler', () => {
  it('answers a service error with its status and text, and its details when it has them', async () => {
    expect(parse(await failWith(new NotFoundError('Thing not found')))).toEqual({ status: 404, body: { error: 'Thing not found' } });
    expect(parse(await failWith(new BadRequestError('No updates provided')))).toEqual({ status: 400, body: { error: 'No updates provided' } });
    const details = [{ field: 'slug', message: 'Taken' }];
    expect(parse(await failWith(new ConflictError('Slug taken', details)))).toEqual({ status: 409, body: { error: 'Slug taken', details } });
  });

  it("answers a 429 as API Gateway's own, {message} with Retry-After", async () => {
    const response = await failWith(new TooManyRequestsError('Daily limit reached', 3600));
    expect(parse(response)).toEqual({ status: 429, body: { message: 'Daily limit reached' } });
    expect(response.headers).toMatchObject({ 'retry-after': '3600' });
  });

  it("turns an unknown error into the route's generic 500 with the request id, logging the cause and never returning it", async () => {
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const response = await failWith(new Error('connection string postgres://secret'));
    expect(parse(response)).toEqual({ status: 500, body: { error: 'Failed to create thing', request_id: 'req-1' } });
    expect(response.body).not.toContain('secret');
    expect(log).toHaveBeenCalledWith(
      'Failed to create thing',
      expect.objectContaining({ request_id: 'req-1', route: 'POST /api/test', error: expect.objectContaining({ message: 'connection string postgres://secret' }) }),
    );
  });

  it('treats an error that only looks like a service error as unknown', async () => {
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const lookalike = Object.assign(new Error('internal detail'), { statusCode: 404, expose: true });
    expect(parse(await failWith(lookalike))).toEqual({ status: 500, body: { error: 'Failed to create thing', request_id: 'req-1' } });
  });
});
