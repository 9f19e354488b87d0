/** The JSON body parser: decodes and parses the body: 413 when too large, 415 when not JSON, 400 when malformed. */
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../../shared/platform/errors.js';
import type { HttpMiddleware, HttpRequest } from './types.js';

/** Request bodies larger than this are refused with 413. */
export const MAX_BODY_BYTES = 64 * 1024;

const isJsonContentType = (value: string | undefined) =>
  value !== undefined && /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(value.trim());

/** Leaves the parsed body in `request.internal.json` (nothing for a request without a body). */
export const jsonBodyParser = (): HttpMiddleware => ({
  before: (request: HttpRequest) => {
    const { body, isBase64Encoded, headers } = request.event;
    if (body === undefined || body === '') return;
    const raw = isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
    if (raw.byteLength > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    if (!isJsonContentType(headers?.['content-type'])) throw new UnsupportedMediaTypeError();
    try {
      request.internal.json = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new ValidationError([{ field: 'body', message: 'Malformed JSON' }]);
    }
  },
});
