/** Starts the run's DynamoDB Local pool (test/support/dynamodb-pool.ts): each test file leases an instance. */
import type { TestProject } from 'vitest/node';
import { DynamoDbPool, servePool } from './dynamodb-pool.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbPool: string;
  }
}

export default async function setup(project: TestProject) {
  const pool = new DynamoDbPool();
  const served = await servePool(pool);
  project.provide('dynamodbPool', served.url);
  return async () => {
    await served.close();
    if (process.env.TEST_POOL_REPORT) console.log(`DynamoDB Local instances started: ${pool.started}`);
  };
}
