/**
 * The background thread's stdout and stderr, written by the thread itself. A Worker's own are
 * pipes to the thread that started it, which writes what arrives: every log line of the notifier,
 * the publisher and the scheduler would otherwise be a message the gateway's thread receives and
 * writes between requests. Imported first by the worker, before anything can print.
 *
 * Each chunk goes to the process's descriptor in `write` calls of its own (a log line is one
 * chunk, so lines of the two threads never interleave inside a line that fits a pipe's atomic
 * write). The gateway's thread may have made a pipe non-blocking; a full pipe then makes this
 * thread wait and try again, as a blocking write would: the background slows down, the request
 * path does not, and nothing is buffered without bound.
 */
import { writeSync } from 'node:fs';
import { Writable } from 'node:stream';

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `data` to `fd`, waiting a millisecond whenever a non-blocking descriptor is full. */
function writeFully(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += writeSync(fd, data, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

function descriptorStream(fd: number): Writable {
  return new Writable({
    decodeStrings: true,
    write(chunk: Buffer, _encoding, done) {
      try {
        writeFully(fd, chunk);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
}

for (const [name, fd] of [['stdout', 1], ['stderr', 2]] as const) {
  const stream = descriptorStream(fd);
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream });
}
