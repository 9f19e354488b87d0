/**
 * Observes the service's DynamoDB client through the SDK middleware stack: counts the calls
 * each request makes (the per-endpoint budget) and injects failures (the 500 paths).
 */
import { invocationScope } from '../../infra/local/gateway.js';
import { db } from '../../shared/db/client.js';

export interface CallLog {
  /** Every call, with the function invocation it belonged to (none for test code itself). */
  calls: { command: string; functionName?: string }[];
  /** The commands one function's invocations sent. */
  commandsOf(functionName: string): string[];
  /** The commands sent outside any function invocation (test code calling domain code). */
  readonly commands: string[];
  reset(): void;
}

let installed: CallLog | undefined;
/** Functions whose next DynamoDB call fails. */
const failuresPending = new Set<string>();

export function dynamoCalls(): CallLog {
  if (installed) return installed;
  const log: CallLog = {
    calls: [],
    commandsOf: (functionName) =>
      log.calls.filter((call) => call.functionName === functionName).map((call) => call.command),
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
      log.calls.push({ command: String(context.commandName), functionName });
      if (functionName && failuresPending.delete(functionName)) {
        throw Object.assign(new Error('Injected failure: DynamoDB unavailable (secret-internal-detail)'), {
          name: 'ServiceUnavailable',
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'testCallObserver' },
  );
  installed = log;
  return log;
}

/** The next DynamoDB call of `functionName` fails as if the service were unavailable. */
export function failNextDynamoCall(functionName: string) {
  dynamoCalls();
  failuresPending.add(functionName);
}
