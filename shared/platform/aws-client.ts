/**
 * The service's AWS SDK clients, created once per cold start, without the SDK's logger
 * middleware. That middleware builds a copy of every request's input and every answer's output,
 * filtered of sensitive members, for the client's logger, and does so even with the default
 * logger, which discards it: about 8 % of the CPU a DynamoDB Query costs the SDK
 * (docs/performance.md). The service configures no SDK logger; its own log line per invocation
 * (functions/lib/observability.ts) says what a request did.
 */
import { perSandbox } from './sandbox.js';

interface SdkClient {
  middlewareStack: { remove(toRemove: string): boolean };
}

export function leanClient<C extends SdkClient>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/** A lean client created on first use, kept for the sandbox's life, and destroyed when a new sandbox starts. */
export const sandboxClient = <C extends SdkClient & { destroy(): void }>(create: () => C): (() => C) =>
  perSandbox(() => leanClient(create()), (client) => client.destroy());
