import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ForbiddenError, NotFoundError } from '../../../shared/platform/errors.js';
import { httpEvent } from '../../../infra/testing/events.js';
import { runWith } from '../../../test/support/middleware.js';
import { logger } from '../observability.js';
import { htmlErrorHandler } from './html-error-handler.js';

const failWith = (error: unknown) =>
  runWith(htmlErrorHandler('Could not unsubscribe'), httpEvent({ routeKey: 'GET /unsubscribe/{token}' }), async () => {
    throw error;
  });

// As every deployment sets it (the console's origin, or empty without a console: shared/platform/console-links.ts).
beforeEach(() => {
  vi.stubEnv('CONSOLE_URL', '');
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('htmlErrorHandler', () => {
  it('answers a service error with a page saying the link is not valid, with its status', async () => {
    for (const [error, status] of [[new NotFoundError('Token not found'), 404], [new ForbiddenError('Not authorized'), 403]] as const) {
      const response = await failWith(error);
      expect(response.statusCode).toBe(status);
      expect(response.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      expect(response.body).toContain('<h1>This link is not valid</h1>');
      // No console: no script at all (issue 44's local-time.js comes from the console).
      expect(response.headers!['content-security-policy']).toContain("script-src 'none'");
    }
  });

  it("answers anything else with a 500 page of the route's failure text, logging the cause and never showing it", async () => {
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const response = await failWith(new Error('table secret-table unreachable'));
    expect(response.statusCode).toBe(500);
    expect(response.body).toContain('<h1>Could not unsubscribe</h1>');
    expect(response.body).not.toContain('secret');
    expect(log).toHaveBeenCalledWith('Could not unsubscribe', expect.objectContaining({ request_id: 'req-1', error: expect.objectContaining({ message: 'table secret-table unreachable' }) }));
  });
});
