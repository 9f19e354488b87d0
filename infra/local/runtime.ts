/**
 * The local runtime: the route table served by the local API Gateway, against DynamoDB Local,
 * with a local JWT issuer and local-only account sign-up. Used by `npm start` and by the tests.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { signUpInput } from '../../shared/accounts/model.js';
import { signUp } from '../../shared/accounts/service.js';
import { accountView } from '../../shared/accounts/model.js';
import { routes, table, TABLE_NAME_ENV, type RouteDescription } from '../system.js';
import { fieldErrors } from '../../functions/lib/http.js';
import { LocalStartError } from './errors.js';
import { createGateway, type LambdaHandler, type LocalEndpoint } from './gateway.js';
import { LocalIssuer } from './jwt.js';
import { ensureTable } from './table.js';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The issuer of local tokens (independent of the port, so tokens survive a port change). */
export const LOCAL_ISSUER = 'http://localhost/incident-service';

export interface RuntimeOptions {
  /** HTTP port; 0 picks a free one. */
  port: number;
  dynamodbEndpoint: string;
  tableName?: string;
  /** Where the signing key is kept; omitted = in memory. */
  keyFile?: string;
}

export interface Runtime {
  url: string;
  port: number;
  issuer: LocalIssuer;
  tableName: string;
  close(): Promise<void>;
}

/**
 * Points the AWS SDK of this process at the local services. The credentials are fixed local
 * ones so that a developer's real AWS credentials are never used by the local runtime.
 */
export function useLocalAws(dynamodbEndpoint: string, tableName: string) {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamodbEndpoint;
  process.env.AWS_REGION = 'local';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env[TABLE_NAME_ENV] = tableName;
}

export async function loadHandler(route: { handler: string }): Promise<LambdaHandler> {
  const module = (await import(pathToFileURL(join(repositoryRoot, route.handler)).href)) as { handler?: LambdaHandler };
  if (typeof module.handler !== 'function') throw new Error(`${route.handler} does not export a handler`);
  return module.handler;
}

function localEndpoints(issuer: LocalIssuer): LocalEndpoint[] {
  return [
    {
      method: 'POST',
      path: '/local/users',
      async handle({ body }) {
        const input = signUpInput.safeParse(body);
        if (!input.success) {
          return { status: 400, body: { error: 'Validation errors', details: fieldErrors(input.error, 'body') } };
        }
        const account = await signUp(input.data);
        const token = await issuer.sign({ sub: account.id, email: account.email, name: account.name });
        return { status: 201, body: { user: accountView(account), token } };
      },
    },
    { method: 'GET', path: '/.well-known/jwks.json', handle: async () => ({ status: 200, body: issuer.jwks() }) },
    {
      method: 'GET',
      path: '/.well-known/openid-configuration',
      handle: async () => ({
        status: 200,
        body: { issuer: issuer.issuer, jwks_uri: '/.well-known/jwks.json', id_token_signing_alg_values_supported: ['RS256'] },
      }),
    },
  ];
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const tableName = options.tableName ?? table.name;
  useLocalAws(options.dynamodbEndpoint, tableName);
  const admin = new DynamoDBClient({});
  await ensureTable(admin, tableName, table);
  admin.destroy();

  const issuer = await LocalIssuer.create({ issuer: LOCAL_ISSUER, keyFile: options.keyFile });
  const server = createGateway({
    routes: routes as readonly RouteDescription[],
    issuer,
    loadHandler,
    localEndpoints: localEndpoints(issuer),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new LocalStartError(`Port ${options.port} is already in use; stop what uses it or set PORT.`)
          : error,
      ),
    );
    server.listen(options.port, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    port,
    issuer,
    tableName,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
