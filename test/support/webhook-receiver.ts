/**
 * A real webhook receiver on 127.0.0.1 (plain http, or https with a certificate the test makes),
 * recording every request it gets, answering as the test's handler says.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The TLS server name the client asked for (https only). */
  servername?: string | false | null;
}

export type ReceiverHandler = (request: ReceivedRequest, response: ServerResponse) => void;

export interface Receiver {
  port: number;
  /** `http://127.0.0.1:<port>` (or https). */
  origin: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

const ok: ReceiverHandler = (_request, response) => response.writeHead(204).end();

export async function startReceiver(handler: ReceiverHandler = ok, tls?: { key: string; cert: string }): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        ...(tls ? { servername: (request.socket as TLSSocket).servername } : {}),
      };
      requests.push(received);
      handler(received, response);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
