/**
 * The local stand-in for the console's hosting on AWS (S3 behind CloudFront, `infra/cdk/console.ts`):
 * the built console at its own origin, every answer with the security headers declared once in
 * `consoleHosting` (shared/system.ts), the runtime settings at `/config.json`, and SPA routing: a
 * path that names no file is answered with `index.html`, as the distribution's routing does.
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { consoleHosting, type ConsoleConfig } from '../../../shared/system.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export interface ConsoleHostOptions {
  /** The built console (`console/dist`). */
  dir: string;
  /** The settings the console reads at start; asked for on every request (the API's URL is known only once it listens). */
  config: () => ConsoleConfig;
}

/** The console's origins its pages may call: the API's and the sign-in's. */
export const connectOriginsOf = (config: ConsoleConfig) => [...new Set([new URL(config.apiUrl).origin, new URL(config.auth.tokenUrl).origin])];

export function createConsoleHost(options: ConsoleHostOptions): Server {
  const root = normalize(options.dir);
  return createServer((request, response) => {
    void (async () => {
      const config = options.config();
      const headers: Record<string, string> = {
        ...consoleHosting.securityHeaders,
        'content-security-policy': consoleHosting.contentSecurityPolicy(connectOriginsOf(config)),
      };
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        response.writeHead(405, { ...headers, allow: 'GET, HEAD' }).end();
        return;
      }
      const path = decodeURIComponent(new URL(request.url ?? '/', 'http://console').pathname);
      if (path === `/${consoleHosting.configFile}`) {
        response.writeHead(200, { ...headers, 'content-type': TYPES['.json']!, 'cache-control': consoleHosting.revalidate }).end(JSON.stringify(config));
        return;
      }
      const file = normalize(join(root, path));
      const inside = file.startsWith(root + sep);
      const found = inside && extname(file) !== '' && (await stat(file).catch(() => undefined))?.isFile();
      if (!found && extname(path) !== '') {
        response.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
        return;
      }
      const served = found ? file : join(root, 'index.html');
      const body = await readFile(served);
      const cache = served.includes(`${sep}assets${sep}`) ? consoleHosting.immutableAssets : consoleHosting.revalidate;
      response.writeHead(200, { ...headers, 'content-type': TYPES[extname(served)] ?? 'application/octet-stream', 'cache-control': cache });
      response.end(request.method === 'HEAD' ? undefined : body);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('The console could not be served: is it built (npm start builds it)?');
    });
  });
}

/** The settings of a console calling the local runtime at `apiUrl` (its sign-in is the runtime's provider). */
export function localConsoleConfig(apiUrl: string, clientId: string): ConsoleConfig {
  return {
    apiUrl,
    auth: {
      clientId,
      authorizeUrl: `${apiUrl}/oauth2/authorize`,
      tokenUrl: `${apiUrl}/oauth2/token`,
      logoutUrl: `${apiUrl}/logout`,
      scopes: 'openid email profile',
    },
  };
}
