import { describe, expect, it } from 'vitest';
import * as z from '../../../shared/platform/zod.js';
import { idParams, noBody, noParams, noQuery } from '../../../shared/platform/validation.js';
import { httpEvent } from '../../../infra/testing/events.js';
import { runWith } from '../../../test/support/middleware.js';
import { jsonBodyParser } from './json-body.js';
import { validatedInput, validator } from './validator.js';

const body = z.strictObject({ title: z.string().check(z.trim(), z.minLength(1), z.maxLength(5)), count: z.optional(z.int()) });
const query = z.object({ severity: z.optional(z.enum(['HIGH'])) });

/** The input the route handler is handed after the body parser and the validator. */
async function validate(schemas: Parameters<typeof validator>[0], event: ReturnType<typeof httpEvent>) {
  let input: unknown;
  await runWith([jsonBodyParser(), validator(schemas)], event, async (validated) => {
    input = validatedInput(validated);
    return { statusCode: 200 };
  });
  return input;
}

describe('validator', () => {
  it("hands the route handler the schemas' output (trimmed, defaults applied)", async () => {
    expect(await validate({ params: noParams, query: noQuery, body }, httpEvent({ body: '{"title":"  ab "}' }))).toEqual({ params: {}, query: {}, body: { title: 'ab' } });
  });

  it('takes a request with no parameters, query or body where the route takes none', async () => {
    expect(await validate({ params: noParams, query: noQuery, body: noBody }, httpEvent())).toEqual({ params: {}, query: {}, body: undefined });
  });

  it.each([
    ['no body', httpEvent(), [{ field: 'body', message: expect.any(String) }]],
    ['a wrong type', httpEvent({ body: '{"title":5}' }), [{ field: 'title', message: expect.any(String) }]],
    ['unknown fields', httpEvent({ body: '{"title":"a","x":1,"y":2}' }), [
      { field: 'x', message: 'Unknown field' },
      { field: 'y', message: 'Unknown field' },
    ]],
    ['too long after trimming', httpEvent({ body: '{"title":" abcdef "}' }), [{ field: 'title', message: expect.any(String) }]],
  ])('answers 400 Validation errors with details for %s, never reaching the route handler', async (_, event, details) => {
    await expect(validate({ params: noParams, query: noQuery, body }, event)).rejects.toMatchObject({ statusCode: 400, message: 'Validation errors', details });
  });

  it('reports path, query and body problems together', async () => {
    const event = httpEvent({ pathParameters: { id: 'nope' }, queryStringParameters: { severity: 'LOW' }, body: '{}' });
    const refused = await validate({ params: idParams, query, body }, event).catch((error: { details: { field: string }[] }) => error);
    expect((refused as { details: { field: string }[] }).details.map((detail) => detail.field)).toEqual(['id', 'severity', 'title']);
  });
});
