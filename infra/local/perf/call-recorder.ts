/**
 * Records the calls function invocations make through the service's DynamoDB and SES clients,
 * with when each started and ended: what `npm run bench` replays as a floor (the same calls, sent
 * straight). A middleware goes on the clients only while recording, so the request path carries
 * it only then. Each thread records its own functions' calls (`Service.recordCalls`).
 */
import { db } from '../../../shared/platform/db/client.js';
import { sesClient } from '../../../shared/channels/email.js';
import { invocationChannel, invocationScope } from '../aws/functions.js';
import { onNewSandbox } from '../../../shared/platform/sandbox.js';

export interface RecordedCall {
  functionName: string;
  /** The invocation it belonged to. */
  requestId: string;
  /** `DynamoDB` (the document client's command and input), `SES`, or `Lambda` (the invocation itself, command `Invoke`, no input). */
  service: 'DynamoDB' | 'SES' | 'Lambda';
  command: string;
  input: unknown;
  /** Epoch milliseconds (fractional), comparable between threads. */
  startedAt: number;
  endedAt: number;
  /** The error's name, for a call that failed (a refused condition, say). */
  failed?: string;
}

const MIDDLEWARE = 'localCallRecorder';
const now = () => performance.timeOrigin + performance.now();

type Stack = { add(middleware: unknown, options: object): void; remove(name: string): boolean };
type Next = (args: { input: unknown }) => Promise<unknown>;

let recorded: RecordedCall[] | undefined;

type Scope = { functionName: string; requestId: string };
const ignore = () => undefined;
/** This module's subscriber to the invocation channel (its start and end set while recording). */
const invocations: Record<'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error', (scope: Scope & { error?: unknown }) => void> = {
  start: ignore,
  end: ignore,
  asyncStart: ignore,
  asyncEnd: ignore,
  error: ignore,
};

const clients = (): { service: RecordedCall['service']; stack: Stack }[] => [
  { service: 'DynamoDB', stack: db().middlewareStack as unknown as Stack },
  { service: 'SES', stack: sesClient().middlewareStack as unknown as Stack },
];

/** Starts recording this thread's invocations' calls (again from nothing, if already recording). */
export function startRecording(): void {
  recorded = [];
  const log = recorded;
  // Each invocation itself, from the runtime's invocation channel: when it began and ended.
  invocationChannel.unsubscribe(invocations as never);
  const started = new WeakMap<object, number>();
  const ended = (scope: Scope & { error?: unknown }) =>
    void log.push({
      functionName: scope.functionName,
      requestId: scope.requestId,
      service: 'Lambda',
      command: 'Invoke',
      input: undefined,
      startedAt: started.get(scope) ?? now(),
      endedAt: now(),
      ...(scope.error !== undefined ? { failed: scope.error instanceof Error ? scope.error.name : 'Error' } : {}),
    });
  invocations.start = (scope) => void started.set(scope, now());
  invocations.asyncEnd = ended;
  invocationChannel.subscribe(invocations as never);
  for (const { service, stack } of clients()) {
    stack.remove(MIDDLEWARE);
    stack.add(
      (next: Next, context: { commandName: string }) => async (args: { input: unknown }) => {
        const scope = invocationScope.getStore();
        const log = recorded;
        if (!scope || !log) return next(args);
        let input: unknown;
        try {
          // Before any later middleware (or the document client's marshalling) touches it.
          input = structuredClone(args.input);
        } catch {
          // Not a value a thread can be sent (never so far): the call goes on unrecorded.
          return next(args);
        }
        const call: RecordedCall = { ...scope, service, command: context.commandName, input, startedAt: now(), endedAt: 0 };
        try {
          return await next(args);
        } catch (error) {
          call.failed = error instanceof Error ? error.name : 'Error';
          throw error;
        } finally {
          call.endedAt = now();
          log.push(call);
        }
      },
      { step: 'initialize', name: MIDDLEWARE, priority: 'high' },
    );
  }
}

/** Stops listening to invocations and hands over what was recorded. */
function endRecording(): RecordedCall[] {
  invocationChannel.unsubscribe(invocations as never);
  const calls = recorded ?? [];
  recorded = undefined;
  return calls;
}

// A new sandbox records nothing (its clients are new; the old ones, with the middleware, are gone).
onNewSandbox(endRecording);

/** Stops recording and answers the calls that ended meanwhile, in the order they started. */
export function stopRecording(): RecordedCall[] {
  for (const { stack } of clients()) stack.remove(MIDDLEWARE);
  return endRecording().sort((a, b) => a.startedAt - b.startedAt);
}
