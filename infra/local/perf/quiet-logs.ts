/**
 * The functions still build every log line (that cost is part of what is measured); the terminal
 * shows only the bench's own output, as CloudWatch would take the lines off the function's hands.
 */
export function quietFunctionLogs() {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
    typeof chunk === 'string' && chunk.startsWith('{"level"') ? true : write(chunk, ...rest)) as typeof process.stdout.write;
}
