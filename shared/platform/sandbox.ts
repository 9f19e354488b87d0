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
    if (held && dispose) dispose(held.value);
    held = undefined;
  });
  return () => (held ??= { value: create() }).value;
}

/** Starts afresh, as a new sandbox would: every registered reset runs. */
export function newSandbox(): void {
  for (const reset of resets) reset();
}
