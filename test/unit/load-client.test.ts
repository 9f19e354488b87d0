/** The bench's load generator reads HTTP/1.1 answers right, over connections it keeps. */
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LoadClient } from '../../infra/tools/load-client.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const thing of open.splice(0)) thing.close();
});

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<string> {
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(url: string) {
  const loader = new LoadClient(url);
  open.push(loader);
  return loader;
}

describe('LoadClient', () => {
  it('sends a prepared request again and again over the same kept-alive connections, as many as were under way at once', async () => {
    const connections = new Set<unknown>();
    const seen: { method?: string; url?: string; auth?: string; body: string }[] = [];
    const server = createServer((request, response) => {
      connections.add(request.socket);
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, auth: request.headers.authorization, body });
        const answer = JSON.stringify({ echo: body || request.url, é: 'ü' });
        response.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
        response.end(answer);
      });
    });
    const loader = client(await listen(server));
    const get = loader.prepare('GET', '/things/1?x=2', { authorization: 'Bearer t' });
    for (let index = 0; index < 5; index++) expect(await get()).toEqual({ status: 201, body: JSON.stringify({ echo: '/things/1?x=2', é: 'ü' }) });
    expect(connections.size).toBe(1);
    const answers = await Promise.all([get(), get(), loader.request('PUT', '/things/1', { 'content-type': 'application/json' }, '{"title":"ça"}')]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(JSON.parse(answers[2]!.body)).toEqual({ echo: '{"title":"ça"}', é: 'ü' });
    expect(connections.size).toBe(3);
    expect(seen.at(-1)).toEqual({ method: 'PUT', url: '/things/1', auth: undefined, body: '{"title":"ça"}' });
    expect(seen[0]).toMatchObject({ method: 'GET', auth: 'Bearer t', body: '' });
  });

  it('reads an answer that arrives in pieces, and opens a new connection after the server closes one', async () => {
    let connections = 0;
    const server = createTcpServer((socket) => {
      connections++;
      socket.once('data', () => {
        // The head split mid-line, the body in two pieces, then the server hangs up.
        socket.write('HTTP/1.1 200 OK\r\nContent-Le');
        setTimeout(() => socket.write('ngth: 11\r\nConnection: close\r\n\r\nhello'), 5);
        setTimeout(() => socket.end(' world'), 10);
      });
    });
    const get = client(await listen(server)).prepare('GET', '/');
    expect(await get()).toEqual({ status: 200, body: 'hello world' });
    expect(await get()).toEqual({ status: 200, body: 'hello world' });
    expect(connections).toBe(2);
  });

  it('fails a request whose answer it cannot frame, or that the server drops, and goes on with a new connection', async () => {
    let answers = ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n', 'drop', 'HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno'];
    const server = createTcpServer((socket) => {
      socket.on('data', () => {
        const [next, ...rest] = answers;
        answers = rest;
        if (next === 'drop') socket.destroy();
        else socket.write(next!);
      });
    });
    const get = client(await listen(server)).prepare('GET', '/');
    await expect(get()).rejects.toThrow(/without a Content-Length/);
    await expect(get()).rejects.toThrow(/closed the connection before it answered/);
    expect(await get()).toEqual({ status: 404, body: 'no' });
  });
});
