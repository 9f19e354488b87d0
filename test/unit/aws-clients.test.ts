import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { leanClient } from '../../shared/platform/aws-client.js';
import { db } from '../../shared/platform/db/client.js';
import { sesClient } from '../../shared/channels/email.js';

const names = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);

describe("the service's AWS SDK clients", () => {
  it('a default client carries the logger middleware that leanClient takes off', () => {
    expect(names(new DynamoDBClient({ region: 'eu-west-1' }))).toContain('loggerMiddleware');
    const lean = leanClient(new DynamoDBClient({ region: 'eu-west-1' }));
    expect(names(lean)).not.toContain('loggerMiddleware');
    // The rest of the stack is the SDK's own.
    expect(names(lean)).toEqual(names(new DynamoDBClient({ region: 'eu-west-1' })).filter((name) => name !== 'loggerMiddleware'));
  });

  it('the DynamoDB document client and the SES client build no copies of requests for a logger', () => {
    expect(names(db())).not.toContain('loggerMiddleware');
    expect(names(db())).toContain('serializerMiddleware');
    expect(names(sesClient())).not.toContain('loggerMiddleware');
  });
});
