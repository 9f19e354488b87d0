/**
 * The bench's load generator: HTTP/1.1 requests built once and written as they are on kept-alive sockets,
 * each answer read by its Content-Length, as autocannon and wrk do, so that the client is not what is
 * measured (`node:http`'s client costs about 0.1 ms of CPU a request). It speaks only what it needs: one
 * request at a time per connection, answers with a Content-Length (the gateway gives every answer one, as
 * API Gateway does), and a connection the server closes is opened again for the next request.
 */
import { connect, type Socket } from 'node:net';

export interface Answer {
  status: number;
  body: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** One kept-alive connection, one request under way at a time. */
class Connection {
  private socket: Socket | undefined;
  private received: Buffer[] = [];
  private receivedBytes = 0;
  private waiting: { resolve(answer: Answer): void; reject(error: Error): void } | undefined;
  /** Where the answer's body starts and how long it is, once its head has been read. */
  private framing: { bodyStart: number; length: number; status: number; closes: boolean } | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  send(request: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.open().write(request);
    });
  }

  close() {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): Socket {
    if (this.socket) return this.socket;
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    socket.on('data', (chunk: Buffer) => {
      if (this.socket === socket) this.read(chunk);
    });
    const lost = (error?: Error) => {
      // A socket this connection has already let go of (one the server closed after its answer).
      if (this.socket !== socket) return;
      this.fail(error ?? new Error('the server closed the connection before it answered'));
    };
    socket.once('error', lost);
    socket.once('close', () => lost());
    this.socket = socket;
    return socket;
  }

  /** Rejects the request under way, if any, and drops the socket: what it would send next is unknowable. */
  private fail(error: Error) {
    const waiting = this.waiting;
    this.reset();
    this.close();
    waiting?.reject(error);
  }

  private reset() {
    this.waiting = undefined;
    this.framing = undefined;
    this.received = [];
    this.receivedBytes = 0;
  }

  private read(chunk: Buffer) {
    this.received.push(chunk);
    this.receivedBytes += chunk.length;
    if (!this.waiting) return this.fail(new Error('the server sent bytes no request asked for'));
    const data = this.received.length === 1 ? chunk : Buffer.concat(this.received, this.receivedBytes);
    this.received = [data];
    if (!this.framing) {
      const headEnd = data.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = data.toString('latin1', 0, headEnd);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
      if (!status) return this.fail(new Error(`not an HTTP answer: ${head.slice(0, 80)}`));
      if (length === undefined) return this.fail(new Error(`an answer without a Content-Length (${status}): this client reads only those`));
      this.framing = { bodyStart: headEnd + HEAD_END.length, length: Number(length), status, closes: /\r\nconnection:\s*close/i.test(head) };
    }
    const { bodyStart, length, status, closes } = this.framing;
    if (data.length < bodyStart + length) return;
    if (data.length > bodyStart + length) return this.fail(new Error('the server sent more than the answer it was asked for'));
    const waiting = this.waiting;
    this.reset();
    if (closes) this.close();
    waiting.resolve({ status, body: data.toString('utf8', bodyStart, bodyStart + length) });
  }
}

export class LoadClient {
  private readonly idle: Connection[] = [];
  private readonly all: Connection[] = [];
  private readonly host: string;
  private readonly port: number;
  private readonly authority: string;

  constructor(baseUrl: string) {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:') throw new Error(`the load client speaks plain HTTP, not ${url.protocol}`);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.authority = url.host;
  }

  /**
   * A request built once, sent as often as it is called: on an idle connection, or a new one
   * (so as many connections stay open as requests were ever under way at once).
   */
  prepare(method: string, path: string, headers: Record<string, string> = {}, body?: string): () => Promise<Answer> {
    const request = this.build(method, path, headers, body);
    return () => this.send(request);
  }

  /** One request built for this call (a body that changes from call to call). */
  request(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
    return this.send(this.build(method, path, headers, body));
  }

  private build(method: string, path: string, headers: Record<string, string>, body: string | undefined): Buffer {
    const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
    const lines = [`${method} ${path} HTTP/1.1`, `host: ${this.authority}`, 'connection: keep-alive'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (payload) lines.push(`content-length: ${payload.length}`);
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    return payload ? Buffer.concat([head, payload]) : head;
  }

  private async send(request: Buffer): Promise<Answer> {
    const connection = this.idle.pop() ?? this.connection();
    try {
      return await connection.send(request);
    } finally {
      this.idle.push(connection);
    }
  }

  close() {
    for (const connection of this.all) connection.close();
    this.idle.length = 0;
    this.all.length = 0;
  }

  private connection() {
    const connection = new Connection(this.host, this.port);
    this.all.push(connection);
    return connection;
  }
}
