/**
 * Typed errors of the service. Each carries the HTTP status it maps to and whether
 * its message may be shown to the caller (`expose`); the one error middleware turns
 * them into responses. Anything else is an unexpected failure: logged, never returned.
 */
export interface FieldError {
  field: string;
  message: string;
}

export class ServiceError extends Error {
  readonly expose = true;
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: FieldError[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends ServiceError {
  constructor(details: FieldError[]) {
    super(400, 'Validation errors', details);
  }
}

export class BadRequestError extends ServiceError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends ServiceError {
  constructor() {
    super(401, 'Unauthorized');
  }
}

export class ForbiddenError extends ServiceError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends ServiceError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends ServiceError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends ServiceError {
  constructor(limitBytes: number) {
    super(413, `Request body too large (limit ${limitBytes} bytes)`);
  }
}

export class UnsupportedMediaTypeError extends ServiceError {
  constructor() {
    super(415, 'Content-Type must be application/json');
  }
}

/** A daily quota reached: `429` with `Retry-After` (seconds), its body `{"message"}` as API Gateway's own 429. */
export class TooManyRequestsError extends ServiceError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof ServiceError;
}
