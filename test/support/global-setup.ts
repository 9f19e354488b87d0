/** Starts one DynamoDB Local (in memory) for the whole test run. */
import type { TestProject } from 'vitest/node';
import { freePort } from '../../infra/local/ports.js';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const database = await startDynamoDbLocal({ port: await freePort() });
  project.provide('dynamodbEndpoint', database.endpoint);
  return () => database.stop();
}
