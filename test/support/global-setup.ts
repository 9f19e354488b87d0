/** Starts one DynamoDB Local (in memory) for the whole test run. */
import { createServer, type AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

export default async function setup(project: TestProject) {
  const database = await startDynamoDbLocal({ port: await freePort() });
  project.provide('dynamodbEndpoint', database.endpoint);
  return () => database.stop();
}
