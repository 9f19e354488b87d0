/** The shared handler stack, with a stubbed domain call: parsing, validation, caller, error mapping. */
import { describe, expect, it, vi } from 'vitest';
import * as z from '../../shared/platform/zod.js';
import { httpRoute, nextPageLink } from '../../functions/lib/http.js';
import { logger } from '../../functions/lib/observability.js';
import { BadRequestError, NotFoundError } from '../../shared/platform/errors.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpEvent, lambdaContext } from '../support/events.js';

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
      caller: { userId: '11111111-1111-4111-8111-111111111111', email: undefined, name: undefined },
    });
  });

  it('decodes a base64 body', async () => {
    const domain = vi.fn(async () => ({}));
    const event = httpEvent({ body: Buffer.from('{"title":"b64"}').toString('base64'), isBase64Encoded: true });
    await routeWith(domain)(event, lambdaContext());
    expect(domain).toHaveBeenCalledWith(expect.objectContaining({ input: { title: 'b64' } }));
  });

  it.each([
    ['malformed JSON', httpEvent({ body: '{"title":' }), [{ field: 'body', message: 'Malformed JSON' }]],
    ['no body', httpEvent(), [{ field: 'body', message: expect.any(String) }]],
    ['a wrong type', httpEvent({ body: '{"title":5}' }), [{ field: 'title', message: expect.any(String) }]],
    ['an unknown field', httpEvent({ body: '{"title":"a","x":1,"y":2}' }), [
      { field: 'x', message: 'Unknown field' },
      { field: 'y', message: 'Unknown field' },
    ]],
    ['too long after trimming', httpEvent({ body: '{"title":" abcdef "}' }), [{ field: 'title', message: expect.any(String) }]],
  ])('answers 400 Validation errors with details for %s, never calling the domain', async (_, event, details) => {
    const domain = vi.fn(async () => ({}));
    const result = parse(await routeWith(domain)(event, lambdaContext()));
    expect(result).toEqual({ status: 400, body: { error: 'Validation errors', details } });
    expect(domain).not.toHaveBeenCalled();
  });

  it('reports path, query and body problems together', async () => {
    const handler = httpRoute(
      { summary: 'x', params: idParams, query: z.object({ severity: z.optional(z.enum(['HIGH'])) }), body, response: z.unknown(), failure: 'x' },
      async () => ({}),
    );
    const event = httpEvent({ pathParameters: { id: 'nope' }, queryStringParameters: { severity: 'LOW' }, body: '{}' });
    const result = parse(await handler(event, lambdaContext()));
    expect(result.body.details.map((detail: { field: string }) => detail.field)).toEqual(['id', 'severity', 'title']);
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

  it('maps typed errors to their status and text', async () => {
    for (const [error, expected] of [
      [new NotFoundError('Thing not found'), { status: 404, body: { error: 'Thing not found' } }],
      [new BadRequestError('No updates provided'), { status: 400, body: { error: 'No updates provided' } }],
    ] as const) {
      const result = await routeWith(async () => Promise.reject(error))(httpEvent({ body: '{"title":"a"}' }), lambdaContext());
      expect(parse(result)).toEqual(expected);
    }
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
