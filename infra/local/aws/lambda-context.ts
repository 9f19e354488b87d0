/**
 * Lambda's context object for a local invocation. A module of its own (it imports only the system
 * description), so that the bench's warm-CPU probe, a process holding nothing but the function, can
 * build the context the runtime builds.
 */
import type { Context } from 'aws-lambda';
import { functionDefaults } from '../../../shared/system.js';

export const functionArn = (name: string) => `arn:aws:lambda:local:000000000000:function:${name}`;

export function lambdaContext(functionName: string, requestId: string, timeoutSeconds: number): Context {
  return new InvocationContext(functionName, requestId, Date.now() + timeoutSeconds * 1000);
}

/** Lambda's context object (its methods on the prototype, not new closures for every invocation). */
class InvocationContext implements Context {
  callbackWaitsForEmptyEventLoop = true;
  readonly functionVersion = '$LATEST';
  readonly invokedFunctionArn: string;
  readonly memoryLimitInMB = String(functionDefaults.memoryMb);
  readonly logGroupName: string;
  readonly logStreamName = 'local';

  constructor(
    readonly functionName: string,
    readonly awsRequestId: string,
    private readonly deadline: number,
  ) {
    this.invokedFunctionArn = functionArn(functionName);
    this.logGroupName = `/aws/lambda/${functionName}`;
  }

  getRemainingTimeInMillis() {
    return Math.max(0, this.deadline - Date.now());
  }

  done() {}
  fail() {}
  succeed() {}
}
