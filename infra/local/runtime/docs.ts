/**
 * The API reference, served by the local runtime: `GET /openapi.json` (the generated document)
 * and `GET /docs` (Swagger UI from node_modules — no CDN).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { LocalEndpoint } from '../aws/gateway.js';
import { repositoryRoot } from '../../paths.js';

const swaggerUi = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Incident and team management service — API reference</title>
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'list', tryItOutEnabled: true });
  </script>
</body>
</html>
`;

/** The committed document with `url` as its first server, in place of the local one it names. */
function withServer(url: string): string {
  const document = JSON.parse(readFileSync(join(repositoryRoot, 'docs', 'openapi.json'), 'utf8')) as { servers: { url: string; description?: string }[] };
  document.servers = [{ url, description: 'This local runtime' }, ...document.servers.filter((server) => !server.url.startsWith('http://localhost'))];
  return JSON.stringify(document, null, 2);
}

/**
 * `runtimeUrl` is where this runtime answers: the document's local server entry names it (the
 * committed document says localhost:3000), so "Try it out" calls this runtime on any port.
 */
export function docsEndpoints(runtimeUrl: () => string): LocalEndpoint[] {
  let served: string | undefined;
  return [
    {
      method: 'GET',
      path: '/openapi.json',
      handle: async () => {
        // Read once, on the first request (the port is known by then).
        served ??= withServer(runtimeUrl());
        return { status: 200, contentType: 'application/json', body: served };
      },
    },
    { method: 'GET', path: '/docs', handle: async () => ({ status: 200, contentType: 'text/html; charset=utf-8', body: PAGE }) },
    {
      method: 'GET',
      path: '/docs/assets/{file}',
      handle: async ({ params }) => {
        const type = ASSETS[params.file ?? ''];
        if (!type) return { status: 404, body: { message: 'Not Found' } };
        return { status: 200, contentType: type, body: readFileSync(join(swaggerUi(), params.file!)) };
      },
    },
  ];
}
