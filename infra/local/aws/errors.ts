/** A local start that cannot work (no Java, port in use): shown as one clear line, no stack trace. */
export class LocalStartError extends Error {
  override name = 'LocalStartError';
}
