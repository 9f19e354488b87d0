/**
 * Observes the service's DynamoDB client through the SDK middleware stack: counts the calls
 * each request makes (the per-endpoint budget) and injects failures (the 500 paths).
 */
import { db } from '../../shared/db/client.js';

export interface CallLog {
  commands: string[];
  reset(): void;
}

let installed: CallLog | undefined;
let failuresPending = 0;

export function dynamoCalls(): CallLog {
  if (installed) return installed;
  const log: CallLog = {
    commands: [],
    reset() {
      log.commands.length = 0;
    },
  };
  db().middlewareStack.add(
    (next, context) => async (args) => {
      log.commands.push(String(context.commandName));
      if (failuresPending > 0) {
        failuresPending -= 1;
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

/** The next DynamoDB call fails as if the service were unavailable. */
export function failNextDynamoCall() {
  dynamoCalls();
  failuresPending = 1;
}
