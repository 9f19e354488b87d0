/**
 * The handler factories as the routes use them, with a stubbed domain call: the middlewares composed in
 * their order (each is tested alone beside it, in middleware/), the caller, the response.
 */
import { describe, expect, it, vi } from 'vitest';
import * as z from '../../shared/platform/zod.js';
import { httpRoute, nextPageLink, publicHtmlRoute } from './http.js';
import { logger } from './observability.js';
import { NotFoundError } from '../../shared/platform/errors.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpEvent, lambdaContext } from '../../infra/testing/events.js';

const body = z.strictObject({ title: z.string().check(z.trim(), z.minLength(1), z.maxLength(5)), count: z.optional(z.int()) });

function routeWith(domain: (input: unknown) => Promise<unknown>) {
  return httpRoute({ summary: 'Create a thing', body, status: 201, response: z.unknown(), failure: 'Failed to create thing' }, async ({ body: input, caller }) =>
    domain({ input, caller }),
  );
}

const parse = (result: any) => ({ status: result.statusCode, body: JSON.parse(result.body) });

describe('httpRoute', () => {
  it('hands validated input and the caller from the JWT claims to the domain call', async () => {
    const domain = vi.fn(async () => ({ thing: { id: 1 } }));
    const result = await routeWith(domain)(httpEvent({ body: '{"title":"  ab "}' }), lambdaContext());
    expect(parse(result)).toEqual({ status: 201, body: { thing: { id: 1 } } });
    expect(result.headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req-1' });
    expect(domain).toHaveBeenCalledWith({
      input: { title: 'ab' },
      // The request id travels with the caller: audit entries name it (issue 45 §5).
      caller: { userId: '11111111-1111-4111-8111-111111111111', email: undefined, name: undefined, requestId: 'req-1' },
    });
  });

  it('answers 413 over 64 KiB and 415 for a non-JSON content type', async () => {
    const domain = vi.fn(async () => ({}));
    const large = parse(await routeWith(domain)(httpEvent({ body: `{"title":"${'x'.repeat(65 * 1024)}"}` }), lambdaContext()));
    expect(large.status).toBe(413);
    const form = parse(await routeWith(domain)(httpEvent({ body: 'title=a', contentType: 'text/plain' }), lambdaContext()));
    expect(form).toEqual({ status: 415, body: { error: 'Content-Type must be application/json' } });
    const charset = await routeWith(domain)(
      httpEvent({ body: '{"title":"a"}', contentType: 'application/json; charset=utf-8' }),
      lambdaContext(),
    );
    expect(parse(charset).status).toBe(201);
    expect(domain).toHaveBeenCalledTimes(1);
  });

  it('answers a refused body before validation, and a validation error before the domain call', async () => {
    const domain = vi.fn(async () => ({}));
    expect(parse(await routeWith(domain)(httpEvent({ body: '{"title":' }), lambdaContext()))).toEqual({
      status: 400,
      body: { error: 'Validation errors', details: [{ field: 'body', message: 'Malformed JSON' }] },
    });
    expect(parse(await routeWith(domain)(httpEvent({ body: '{"title":5}' }), lambdaContext())).status).toBe(400);
    expect(domain).not.toHaveBeenCalled();
  });

  it('maps a typed error of the domain call to its status and text', async () => {
    const result = await routeWith(async () => Promise.reject(new NotFoundError('Thing not found')))(httpEvent({ body: '{"title":"a"}' }), lambdaContext());
    expect(parse(result)).toEqual({ status: 404, body: { error: 'Thing not found' } });
    expect(result.headers).toMatchObject({ 'x-request-id': 'req-1' });
  });

  it('turns an unknown error into the route\'s generic 500 with the request id, logging the cause and never returning it', async () => {
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const result = await routeWith(async () => {
      throw new Error('connection string postgres://secret');
    })(httpEvent({ body: '{"title":"a"}' }), lambdaContext());
    expect(parse(result)).toEqual({ status: 500, body: { error: 'Failed to create thing', request_id: 'req-1' } });
    expect(result.headers).toMatchObject({ 'x-request-id': 'req-1' });
    expect(result.body).not.toContain('secret');
    expect(log).toHaveBeenCalledWith('Failed to create thing', expect.objectContaining({ request_id: 'req-1', error: expect.objectContaining({ message: 'connection string postgres://secret' }) }));
    log.mockRestore();
  });

  it('answers 401 when the claims carry no subject', async () => {
    const domain = vi.fn(async () => ({}));
    const result = parse(await routeWith(domain)(httpEvent({ sub: null, body: '{"title":"a"}' }), lambdaContext()));
    expect(result).toEqual({ status: 401, body: { error: 'Unauthorized' } });
    expect(domain).not.toHaveBeenCalled();
  });
});

describe('publicHtmlRoute', () => {
  const page = publicHtmlRoute({ summary: 'A page', params: idParams, failure: 'Could not open the page' }, async ({ id }) => {
    if (id === '00000000-0000-4000-8000-000000000000') throw new NotFoundError('Thing not found');
    return { statusCode: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: `<p>${id}</p>` };
  });

  it('hands the validated path parameters to the page and answers failures as pages', async () => {
    // (Pages link to the console when the deployment has one; this one has none, as CDK sets it then.)
    vi.stubEnv('CONSOLE_URL', '');
    const ok = await page(httpEvent({ routeKey: 'GET /things/{id}', pathParameters: { id: '11111111-1111-4111-8111-111111111111' } }), lambdaContext());
    expect(ok).toMatchObject({ statusCode: 200, body: '<p>11111111-1111-4111-8111-111111111111</p>', headers: { 'x-request-id': 'req-1' } });
    for (const id of ['nope', '00000000-0000-4000-8000-000000000000']) {
      const refused = await page(httpEvent({ routeKey: 'GET /things/{id}', pathParameters: { id } }), lambdaContext());
      expect(refused.statusCode).toBe(id === 'nope' ? 400 : 404);
      expect(refused.body).toContain('<h1>This link is not valid</h1>');
    }
    vi.unstubAllEnvs();
  });
});

describe('nextPageLink', () => {
  const event = (rawQueryString: string, headers: Record<string, string>) => ({
    ...httpEvent({ routeKey: 'GET /api/incidents' }),
    rawQueryString,
    headers,
  });

  it('links the same request with cursor set, on the scheme and host the client used', () => {
    const link = nextPageLink(event('severity=HIGH&cursor=old&limit=5', { host: 'api.example.com', 'x-forwarded-proto': 'https' }), 'next+/=');
    expect(link).toEqual({ link: '<https://api.example.com/api/incidents?severity=HIGH&cursor=next%2B%2F%3D&limit=5>; rel="next"' });
    expect(nextPageLink(event('', { host: 'localhost:3000', 'x-forwarded-proto': 'http' }), 'c').link).toBe('<http://localhost:3000/api/incidents?cursor=c>; rel="next"');
  });

  it('adds no link on the last page', () => {
    expect(nextPageLink(event('', { host: 'api.example.com' }), null)).toEqual({});
  });
});
