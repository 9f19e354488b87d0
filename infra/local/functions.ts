/**
 * The local Lambda service: every function of the system description by name, each loaded on
 * first use (a cold start) from the very handler module Lambda runs, invoked with a Lambda context.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { allFunctions, type FunctionDescription } from '../system.js';
import { invoke, type LambdaHandler } from './gateway.js';
import { repositoryRoot } from './paths.js';

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

export const functionArn = (name: string) => `arn:aws:lambda:local:000000000000:function:${name}`;

/** The function named by a name or an ARN. */
export function findFunction(nameOrArn: string): FunctionDescription | undefined {
  const name = nameOrArn.split(':').pop();
  return allFunctions.find((fn) => fn.name === name);
}

/** Invokes a function by name (or ARN) with `event`, as Lambda would. */
export async function invokeFunction(nameOrArn: string, event: unknown): Promise<unknown> {
  const fn = findFunction(nameOrArn);
  if (!fn) throw new Error(`Function not found: ${nameOrArn}`);
  return invoke(await loadHandler(fn), fn.name, event);
}
