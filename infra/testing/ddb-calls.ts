/**
 * Observes the service's DynamoDB client through the SDK middleware stack: counts the calls
 * each request makes (the per-endpoint budget) and injects failures (the 500 paths).
 */
import { invocationScope } from '../local/aws/functions.js';
import { db } from '../../shared/platform/db/client.js';
import { onNewSandbox } from '../../shared/platform/sandbox.js';

export interface CallLog {
  /**
   * Every call, with the function invocation it belonged to (none for test code itself), and
   * whether it opened a round trip: it started while no other call of that function was under way.
   */
  calls: { command: string; functionName?: string; opensRound: boolean; scanned?: number; readUnits?: number; input?: unknown }[];
  /** What one function's Queries examined (`ScannedCount`) and consumed (read units), summed. */
  queryCostOf(functionName: string): { scanned: number; readUnits: number; queries: number };
  /** The commands one function's invocations sent. */
  commandsOf(functionName: string): string[];
  /** How many round trips one function's calls took: calls made in parallel share one. */
  roundsOf(functionName: string): number;
  /** The commands sent outside any function invocation (test code calling domain code). */
  readonly commands: string[];
  reset(): void;
}

let installed: CallLog | undefined;
/** Calls under way, per function. */
const inFlight = new Map<string, number>();
/** Functions whose next DynamoDB call fails. */
const failuresPending = new Set<string>();

export function dynamoCalls(): CallLog {
  if (installed) return installed;
  const log: CallLog = {
    calls: [],
    commandsOf: (functionName) =>
      log.calls.filter((call) => call.functionName === functionName).map((call) => call.command),
    roundsOf: (functionName) => log.calls.filter((call) => call.functionName === functionName && call.opensRound).length,
    queryCostOf: (functionName) => {
      const queries = log.calls.filter((call) => call.functionName === functionName && call.command === 'QueryCommand');
      return {
        scanned: queries.reduce((sum, call) => sum + (call.scanned ?? 0), 0),
        readUnits: queries.reduce((sum, call) => sum + (call.readUnits ?? 0), 0),
        queries: queries.length,
      };
    },
    get commands() {
      return log.calls.filter((call) => call.functionName === undefined).map((call) => call.command);
    },
    reset() {
      log.calls.length = 0;
    },
  };
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const functionName = invocationScope.getStore()?.functionName;
      const key = functionName ?? '';
      const underWay = inFlight.get(key) ?? 0;
      const call: CallLog['calls'][number] = { command: String(context.commandName), functionName, opensRound: underWay === 0, input: args.input };
      log.calls.push(call);
      // Queries report what they examined and consumed (as DynamoDB counts it, whatever filters do).
      if (call.command === 'QueryCommand') (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      if (functionName && failuresPending.delete(functionName)) {
        throw Object.assign(new Error('Injected failure: DynamoDB unavailable (secret-internal-detail)'), {
          name: 'ServiceUnavailable',
        });
      }
      const hold = holds.find((candidate) => candidate.matches(functionName, String(context.commandName)));
      if (hold) await hold.park();
      inFlight.set(key, underWay + 1);
      try {
        const result = await next(args);
        if (call.command === 'QueryCommand') {
          const output = result.output as { ScannedCount?: number; ConsumedCapacity?: { CapacityUnits?: number } };
          call.scanned = output.ScannedCount ?? 0;
          call.readUnits = output.ConsumedCapacity?.CapacityUnits ?? 0;
        }
        return result;
      } finally {
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
      }
    },
    { step: 'initialize', name: 'testCallObserver' },
  );
  installed = log;
  return log;
}

/** Takes the observer off the client (a benchmark, once it has recorded what it needs); `dynamoCalls()` puts it back. */
export function stopObservingCalls() {
  db().middlewareStack.remove('testCallObserver');
  installed = undefined;
}

/** Calls parked by `holdCalls` until released. */
export interface Hold {
  /** How many calls are parked now. */
  readonly parked: number;
  /** Resolves once `count` calls are parked. */
  arrived(count?: number): Promise<void>;
  /** Lets every parked call (and every later one) go on; the hold is gone. */
  release(): void;
}

const holds: (Hold & { matches(functionName: string | undefined, command: string): boolean; park(): Promise<void> })[] = [];

/**
 * Parks `functionName`'s DynamoDB calls of `command` (any command if omitted) before they are
 * sent, until released: a deterministic way to run something between a function's read and its
 * write, or before a worker gets to work.
 */
export function holdCalls(functionName: string, command?: string): Hold {
  dynamoCalls();
  let parked = 0;
  let open: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (open = resolve));
  const waiters: { count: number; resolve: () => void }[] = [];
  const hold = {
    get parked() {
      return parked;
    },
    matches: (name: string | undefined, commandName: string) =>
      name === functionName && (command === undefined || commandName === command),
    async park() {
      parked++;
      for (const waiter of waiters.filter((candidate) => parked >= candidate.count)) waiter.resolve();
      await released;
    },
    arrived: (count = 1) =>
      parked >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    release() {
      const index = holds.indexOf(hold);
      if (index >= 0) holds.splice(index, 1);
      open();
    },
  };
  holds.push(hold);
  return hold;
}

// A new sandbox has a new client, with nothing observed, held or failing yet.
onNewSandbox(() => {
  installed = undefined;
  inFlight.clear();
  failuresPending.clear();
  holds.length = 0;
});

/** The next DynamoDB call of `functionName` fails as if the service were unavailable. */
export function failNextDynamoCall(functionName: string) {
  dynamoCalls();
  failuresPending.add(functionName);
}
