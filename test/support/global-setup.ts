/** Starts the run's DynamoDB Local pool (test/support/dynamodb-pool.ts): each test file leases an instance. */
import type { TestProject } from 'vitest/node';
import { DynamoDbPool, servePool } from './dynamodb-pool.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbPool: string;
  }
}

export default async function setup(project: TestProject) {
  const served = await servePool(new DynamoDbPool());
  project.provide('dynamodbPool', served.url);
  return () => served.close();
}
