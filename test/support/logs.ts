/** What the functions print (stdout and stderr: Powertools writes errors to stderr), as JSON lines. */
import { vi } from 'vitest';

export function captureLogs() {
  const printed: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      printed.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    });
  }
  return {
    printed,
    /** Every JSON line printed so far. */
    jsonLines: () =>
      printed
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, any>),
  };
}
