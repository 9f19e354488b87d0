/**
 * What a Lambda sandbox keeps from its cold start on: its SDK clients, the table's name, what a
 * warm instance remembers, the cold-start flag. On Lambda a sandbox's state ends with the sandbox
 * and nothing calls `newSandbox`. Locally one process can stand for several sandboxes in turn (the
 * test files that share a worker process, each with its own DynamoDB Local, table and runtime):
 * `newSandbox()` gives the next one what a cold start would, as a process of its own did.
 */
const resets: (() => void)[] = [];

/** Registers what a new sandbox undoes (a cache cleared, a test control put back). */
export function onNewSandbox(reset: () => void): void {
  resets.push(reset);
}

/** A value created on first use and kept for the sandbox's life (a client, a setting read once). */
export function perSandbox<T>(create: () => T, dispose?: (value: T) => void): () => T {
  let held: { value: T } | undefined;
  onNewSandbox(() => {
    const old = held;
    held = undefined;
    if (old && dispose) dispose(old.value);
  });
  return () => (held ??= { value: create() }).value;
}

/**
 * Starts afresh, as a new sandbox would: every registered reset runs (one that throws does not keep
 * the others from running; the errors are thrown together after). A reset must not create what it
 * resets: the environment may still be the previous sandbox's.
 */
export function newSandbox(): void {
  const errors: unknown[] = [];
  for (const reset of resets) {
    try {
      reset();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, 'A new sandbox could not reset everything');
}
