import { describe, expect, it } from 'vitest';
import { httpEvent } from '../../../infra/testing/events.js';
import { runWith } from '../../../test/support/middleware.js';
import { jsonBodyParser, MAX_BODY_BYTES } from './json-body.js';
import type { HttpRequest } from './types.js';

/** What the parser leaves for the middlewares after it. */
async function parsed(event: ReturnType<typeof httpEvent>): Promise<unknown> {
  let json: unknown = 'not reached';
  await runWith([jsonBodyParser(), { before: (request: HttpRequest) => void (json = request.internal.json) }], event);
  return json;
}

describe('jsonBodyParser', () => {
  it('parses a JSON body, decoding a base64 one, and leaves nothing for a request without a body', async () => {
    expect(await parsed(httpEvent({ body: '{"title":"a"}' }))).toEqual({ title: 'a' });
    expect(await parsed(httpEvent({ body: Buffer.from('{"title":"b64"}').toString('base64'), isBase64Encoded: true }))).toEqual({ title: 'b64' });
    expect(await parsed(httpEvent())).toBeUndefined();
    expect(await parsed(httpEvent({ body: '' }))).toBeUndefined();
  });

  it('takes application/json with parameters and the +json types', async () => {
    expect(await parsed(httpEvent({ body: '{}', contentType: 'application/json; charset=utf-8' }))).toEqual({});
    expect(await parsed(httpEvent({ body: '{}', contentType: 'application/merge-patch+json' }))).toEqual({});
  });

  it('refuses malformed JSON with 400 Validation errors on the body', async () => {
    await expect(parsed(httpEvent({ body: '{"title":' }))).rejects.toMatchObject({
      statusCode: 400,
      message: 'Validation errors',
      details: [{ field: 'body', message: 'Malformed JSON' }],
    });
  });

  it('refuses a body over 64 KiB with 413 and another content type with 415', async () => {
    expect(MAX_BODY_BYTES).toBe(64 * 1024);
    await expect(parsed(httpEvent({ body: `{"title":"${'x'.repeat(MAX_BODY_BYTES)}"}` }))).rejects.toMatchObject({
      statusCode: 413,
      message: 'Request body too large (limit 65536 bytes)',
    });
    await expect(parsed(httpEvent({ body: 'title=a', contentType: 'text/plain' }))).rejects.toMatchObject({
      statusCode: 415,
      message: 'Content-Type must be application/json',
    });
    await expect(parsed(httpEvent({ body: '{}', contentType: 'application/jsonp' }))).rejects.toMatchObject({ statusCode: 415 });
  });
});
