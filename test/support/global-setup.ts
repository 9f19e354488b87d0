/**
 * The run's DynamoDB Local pool (test/support/dynamodb-pool.ts), one for every project of the run:
 * vitest calls a global setup once per project, each time from a fresh copy of this module, so the
 * pool lives on `globalThis`: the first call serves it and the last teardown closes it. Each test
 * file of the int, http and heavy tiers leases an instance from it.
 */
import type { TestProject } from 'vitest/node';
import { DynamoDbPool, servePool } from './dynamodb-pool.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbPool: string;
  }
}

interface Shared {
  pool: DynamoDbPool;
  served: ReturnType<typeof servePool>;
  users: number;
}
const run = globalThis as { dynamodbPool?: Shared };

export default async function setup(project: TestProject) {
  if (!run.dynamodbPool) {
    const pool = new DynamoDbPool();
    run.dynamodbPool = { pool, served: servePool(pool), users: 0 };
  }
  const shared = run.dynamodbPool;
  shared.users += 1;
  project.provide('dynamodbPool', (await shared.served).url);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    run.dynamodbPool = undefined;
    await (await shared.served).close();
    if (process.env.TEST_POOL_REPORT) console.log(`DynamoDB Local instances started: ${shared.pool.started}`);
  };
}
