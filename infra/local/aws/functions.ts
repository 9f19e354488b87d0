/**
 * The local Lambda service: every function of the system description by name, each loaded on
 * first use (a cold start) from the very handler module Lambda runs, invoked with a Lambda context.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { tracingChannel } from 'node:diagnostics_channel';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { allFunctions, functionDefaults, type FunctionDescription } from '../../../shared/system.js';
import { functionArn, lambdaContext } from './lambda-context.js';
import { repositoryRoot } from '../../paths.js';

export { functionArn, lambdaContext };

export type LambdaHandler = (event: never, context: Context) => Promise<unknown>;

/** Which function invocation the current async work belongs to (for per-invocation measurements). */
export const invocationScope = new AsyncLocalStorage<{ functionName: string; requestId: string }>();

/**
 * Each invocation's start and end, for a profile (`npm run bench -- profile-list`); without a
 * subscriber, invocations do not go through it.
 */
export const invocationChannel = tracingChannel<unknown, { functionName: string; requestId: string }>('local:invocation');

/** Runs `handler` as one invocation of `functionName`, with that function's own timeout (as Lambda gives it). */
export function invoke(handler: LambdaHandler, functionName: string, event: unknown, requestId = randomUUID()) {
  const context = lambdaContext(functionName, requestId, functionsByName.get(functionName)?.timeoutSeconds ?? functionDefaults.timeoutSeconds);
  const scope = { functionName, requestId };
  const run = () => invocationScope.run(scope, () => handler(event as never, context));
  return invocationChannel.hasSubscribers ? invocationChannel.tracePromise(run, scope) : run();
}

const functionsByName = new Map(allFunctions.map((fn) => [fn.name, fn]));

const loaded = new Map<string, Promise<LambdaHandler>>();

export async function loadHandler(fn: Pick<FunctionDescription, 'handler'>): Promise<LambdaHandler> {
  let handler = loaded.get(fn.handler);
  if (!handler) {
    handler = import(pathToFileURL(join(repositoryRoot, fn.handler)).href).then((module: { handler?: LambdaHandler }) => {
      if (typeof module.handler !== 'function') throw new Error(`${fn.handler} does not export a handler`);
      return module.handler;
    });
    loaded.set(fn.handler, handler);
  }
  return handler;
}

/** The function named by a name or an ARN (its last part). */
export function findFunction(nameOrArn: string): FunctionDescription | undefined {
  return functionsByName.get(nameOrArn.slice(nameOrArn.lastIndexOf(':') + 1));
}

/** Invokes a function by name (or ARN) with `event`, as Lambda would. */
export async function invokeFunction(nameOrArn: string, event: unknown): Promise<unknown> {
  const fn = findFunction(nameOrArn);
  if (!fn) throw new Error(`Function not found: ${nameOrArn}`);
  return invoke(await loadHandler(fn), fn.name, event);
}
