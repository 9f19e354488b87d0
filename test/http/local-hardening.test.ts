/**
 * The local runtime safe by default and clear off the happy path: it listens on loopback only,
 * refuses tokens of users who never signed up, explains every 401, tags every answer with its
 * request id, refuses invisible or unencodable text, and answers bad input with a 4xx.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalStartError } from '../../infra/local/aws/errors.js';
import { parseConsolePort, parseWebhookPorts, startRuntime, type RuntimeOptions } from '../../infra/local/runtime/runtime.js';
import { Api, dynamodbEndpoint, uniqueEmail, type User } from '../support/api.js';

let api: Api;
let alice: User;
let monitorId: string;
beforeAll(async () => {
  api = await Api.start();
  alice = await api.signUp(uniqueEmail('hardening'), 'Alice');
  monitorId = (await api.request('POST', '/api/monitors', { token: alice.token, body: { name: 'Hardening' } })).body.monitor.id;
});
afterAll(() => api.close());

/** Whether `port` accepts a connection on `host`. */
const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('listening', () => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

  it('answers on 127.0.0.1 only: the API, the mailbox and DynamoDB Local', async () => {
    // The machine has an address other than loopback (the test proves nothing without one).
    expect(external).toBeDefined();
    const ports = {
      api: api.runtime.port,
      mailbox: Number(new URL(api.runtime.mailbox.url).port),
      dynamodb: Number(new URL(dynamodbEndpoint()).port),
    };
    for (const [name, port] of Object.entries(ports)) {
      expect({ name, loopback: await reachable('127.0.0.1', port) }).toEqual({ name, loopback: true });
      expect({ name, external: await reachable(external!, port) }).toEqual({ name, external: false });
    }
  });
});

describe('webhooks to this machine (LOCAL_WEBHOOK_PORTS)', () => {
  it('refuses to start when the ports named include one of its own services, or when it listens beyond loopback', async () => {
    const dynamodbPort = Number(new URL(dynamodbEndpoint()).port);
    const start = (overrides: Partial<RuntimeOptions>) => startRuntime({ port: 0, sesPort: 0, dynamodbEndpoint: dynamodbEndpoint(), log: () => undefined, ...overrides });
    await expect(start({ webhookPorts: [9000], host: '0.0.0.0' })).rejects.toThrow(
      new LocalStartError("LOCAL_WEBHOOK_PORTS cannot be used with HOST=0.0.0.0: anyone who reaches the API could make webhooks call this machine's services. Unset one of them."),
    );
    await expect(start({ webhookPorts: [9000, dynamodbPort] })).rejects.toThrow(
      new LocalStartError(`LOCAL_WEBHOOK_PORTS names port ${dynamodbPort}, which is DynamoDB Local (DYNAMODB_PORT): webhooks may not reach the runtime's own services.`),
    );
    await expect(start({ webhookPorts: [3999], port: 3999 })).rejects.toThrow(
      "LOCAL_WEBHOOK_PORTS names port 3999, which is the local API (PORT): webhooks may not reach the runtime's own services.",
    );
    await expect(start({ webhookPorts: [8999], sesPort: 8999 })).rejects.toThrow(
      "LOCAL_WEBHOOK_PORTS names port 8999, which is the local SES mailbox (LOCAL_SES_PORT): webhooks may not reach the runtime's own services.",
    );
  });

  it('reads LOCAL_WEBHOOK_PORTS as ports separated by commas, and says how when it is not', () => {
    expect(parseWebhookPorts(undefined)).toEqual([]);
    expect(parseWebhookPorts(' ')).toEqual([]);
    expect(parseWebhookPorts('9000, 9001,9000')).toEqual([9000, 9001]);
    for (const text of ['abc', '9000;9001', '0', '65536', '9000,', '-1']) {
      expect(() => parseWebhookPorts(text)).toThrow(
        new LocalStartError(`LOCAL_WEBHOOK_PORTS must list ports (1-65535) separated by commas, as in LOCAL_WEBHOOK_PORTS=9000,9001; got "${text}".`),
      );
    }
  });

  it('reads CONSOLE_PORT as the console\'s origin (3001 unless set), and says how when it is not a port', () => {
    expect(parseConsolePort(undefined)).toBe('http://localhost:3001');
    expect(parseConsolePort('')).toBe('http://localhost:3001');
    expect(parseConsolePort(' 4000 ')).toBe('http://localhost:4000');
    for (const text of ['abc', '0', '65536', '3001,3002', '-1', 'http://localhost:3001']) {
      expect(() => parseConsolePort(text)).toThrow(new LocalStartError(`CONSOLE_PORT must be a port (1-65535), as in CONSOLE_PORT=3001; got "${text}".`));
    }
  });

  it('lets a webhook reach no port of this machine unless named: the API, the mailbox and DynamoDB Local are refused (400)', async () => {
    for (const port of [api.runtime.port, Number(new URL(api.runtime.mailbox.url).port), Number(new URL(dynamodbEndpoint()).port)]) {
      const created = await api.request('POST', '/api/webhooks', { token: alice.token, body: { url: `http://127.0.0.1:${port}/`, events: ['incident.created'] } });
      expect(created.status).toBe(400);
      expect(created.body.details).toEqual([{ field: 'url', message: `URL points to port ${port} of this machine, which LOCAL_WEBHOOK_PORTS does not name (127.0.0.1)` }]);
    }
  });
});

describe('the local authorizer', () => {
  it('refuses a verified token whose user never signed up, and nothing is created', async () => {
    const ghost = randomUUID();
    const token = await api.runtime.issuer.sign({ sub: ghost, email: uniqueEmail('ghost'), name: 'Ghost' });
    const response = await api.request('POST', '/api/teams', { token, body: { name: 'Orphans', slug: `orphans-${ghost.slice(0, 8)}` } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Unauthorized' });
    expect(response.headers.get('www-authenticate')).toBe(`Bearer scope="" error="invalid_token" error_description="the token's user has not signed up"`);
    // Once the user signs up with that e-mail they get another id: the slug was never claimed.
    const taken = await api.request('POST', '/api/teams', { token: alice.token, body: { name: 'Orphans', slug: `orphans-${ghost.slice(0, 8)}` } });
    expect(taken.status).toBe(201);
  });

  it.each([
    ['an expired token', { exp: Math.floor(Date.now() / 1000) - 5 }, 'the token has expired'],
    ['a wrong audience', { aud: 'someone-else' }, 'the token does not have a valid audience'],
    ['a wrong issuer', { iss: 'https://evil.example.com' }, 'the token does not have a valid issuer'],
  ])('says why it refuses %s, as API Gateway does', async (_, overrides, description) => {
    const token = await api.runtime.issuer.signPayload({
      sub: alice.id,
      iss: api.runtime.issuer.issuer,
      aud: 'incident-service',
      exp: Math.floor(Date.now() / 1000) + 600,
      ...overrides,
    });
    const response = await api.request('GET', '/api/incidents', { token });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer scope="" error="invalid_token" error_description="${description}"`);
  });

  it('answers a missing token with a bare challenge, and accepts a token without "Bearer "', async () => {
    const missing = await api.request('GET', '/api/incidents');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const bare = await api.request('GET', '/api/incidents', { headers: { authorization: alice.token } });
    expect(bare.status).toBe(200);
    const lowercase = await api.request('GET', '/api/incidents', { headers: { authorization: `bearer ${alice.token}` } });
    expect(lowercase.status).toBe(200);
    const basic = await api.request('GET', '/api/incidents', { headers: { authorization: 'Basic YTpi' } });
    expect(basic.status).toBe(401);
  });

  it.each([
    ['a 401 of the authorizer', 'GET', '/api/incidents', undefined],
    ['a 404 of the gateway', 'GET', '/api/nothing-here', undefined],
    ['POST /local/users', 'POST', '/local/users', { email: 'not-an-email', name: 'X' }],
    ['a handler answer', 'GET', '/api/incidents', 'token'],
  ])('tags %s with x-request-id and apigw-requestid', async (_, method, path, body) => {
    const response =
      body === 'token' ? await api.request(method, path, { token: alice.token }) : await api.request(method, path, body ? { body } : {});
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('apigw-requestid')).toBe(id);
  });
});

describe('answers', () => {
  /** The raw answer: its status, headers as sent, and body bytes. */
  const raw = (method: string, path: string, token?: string) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      const sent = httpRequest(`${api.runtime.url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      });
      sent.on('error', reject);
      sent.end();
    });

  it("carry the body's length, as API Gateway's do, never chunked: the gateway's own, a handler's JSON and HTML, non-ASCII text included", async () => {
    const incident = (await api.request('POST', '/api/incidents', { token: alice.token, body: { monitorId, title: 'Panne réseau — 東京' } })).body.incident;
    const answers = [
      await raw('GET', `/api/incidents/${incident.id}`, alice.token),
      await raw('GET', '/api/incidents'),
      await raw('GET', '/api/nothing-here'),
      await raw('GET', '/unsubscribe/not-a-token'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 404]);
    expect(answers[0]!.body.toString('utf8')).toContain('Panne réseau — 東京');
    expect(answers[3]!.headers['content-type']).toMatch(/^text\/html/);
    for (const answer of answers) {
      expect({ length: answer.headers['content-length'], chunked: answer.headers['transfer-encoding'] }).toEqual({ length: String(answer.body.length), chunked: undefined });
    }
  });
});

describe('text a person typed', () => {
  const unusable: [string, string][] = [
    ['only a zero-width space', '\u200b'],
    ['only white space and zero-width characters', ' \u200b\ufeff\u2060 '],
    ['a NUL character', '\u0000'],
    ['a CR/LF (a header injection)', 'Subj\r\nBcc: x@evil.example'],
    ['a lone surrogate', 'x\ud800y'],
    ['a right-to-left override (a spoofed subject)', 'Invoice \u202Egnp.exe'],
    ['a bidirectional isolate', 'Checkout \u2067down\u2069'],
  ];

  it.each(unusable)('refuses %s in every title and name with 400 Validation errors, creating nothing', async (_, value) => {
    const before = (await api.request('GET', `/api/incidents?monitor_id=${monitorId}`, { token: alice.token })).body.incidents.length;
    const incident = (await api.request('POST', '/api/incidents', { token: alice.token, body: { monitorId, title: 'Fine' } })).body.incident;
    const attempts: [string, string, unknown, string][] = [
      ['POST', '/api/incidents', { monitorId, title: value }, 'title'],
      ['PUT', `/api/incidents/${incident.id}`, { title: value }, 'title'],
      ['POST', '/api/monitors', { name: value }, 'name'],
      ['PUT', `/api/monitors/${monitorId}`, { name: value }, 'name'],
      ['POST', '/api/teams', { name: value, slug: `t-${randomUUID().slice(0, 8)}` }, 'name'],
      ['POST', '/api/escalation-policies', { name: value, steps: [{ delay_minutes: 0, emails: ['a@example.com'] }] }, 'name'],
      ['POST', '/local/users', { email: uniqueEmail('name'), name: value }, 'name'],
    ];
    for (const [method, path, body, field] of attempts) {
      const response = await api.request(method, path, { token: alice.token, body });
      expect({ method, path, status: response.status, error: response.body.error }).toEqual({ method, path, status: 400, error: 'Validation errors' });
      expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
    }
    const after = await api.request('GET', `/api/incidents?monitor_id=${monitorId}`, { token: alice.token });
    expect(after.body.incidents.length).toBe(before + 1);
    expect((await api.request('GET', `/api/incidents/${incident.id}`, { token: alice.token })).body.incident.title).toBe('Fine');
  });

  it('keeps line breaks in a message, refuses other control characters there, and trims zero-width edges', async () => {
    const kept = await api.request('POST', '/api/incidents', {
      token: alice.token,
      body: { monitorId, title: '\u200b Checkout down \ufeff', message: 'Line one\nLine two\r\n\tindented' },
    });
    expect(kept.status).toBe(201);
    expect(kept.body.incident.title).toBe('Checkout down');
    const bell = await api.request('POST', '/api/incidents', { token: alice.token, body: { monitorId, title: 'Bell', message: 'ding\u0007' } });
    expect(bell.status).toBe(400);
    expect(bell.body.details).toEqual([{ field: 'message', message: 'Must not contain control characters other than tab and line breaks' }]);
    const override = await api.request('POST', '/api/incidents', { token: alice.token, body: { monitorId, title: 'All \u202Efine' } });
    expect(override.status).toBe(400);
    expect(override.body.details).toEqual([{ field: 'title', message: 'Must not contain bidirectional control characters' }]);
  });
});

describe('bad input to the runtime itself', () => {
  it('answers a Lambda Invoke payload that is not JSON with 400 InvalidRequestContentException', async () => {
    const response = await fetch(`${api.url}/2015-03-31/functions/monitor-check/invocations`, { method: 'POST', body: '{"monitorId":' });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-amzn-errortype')).toBe('InvalidRequestContentException');
    expect(((await response.json()) as { message: string }).message).toMatch(/^Could not parse request body into json/);
  });

  it('answers a body over the gateway limit with 413 and Connection: close, and the next request on a new connection works', async () => {
    const port = api.runtime.port;
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body?: Buffer) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const request = httpRequest({ host: '127.0.0.1', port, method: body ? 'POST' : 'GET', path: body ? '/api/incidents' : '/api/incidents', agent, headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' } }, (response) => {
          response.resume();
          response.once('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection }));
        });
        request.once('error', reject);
        // Streamed without a length, so the limit is met mid-upload.
        if (body) for (let offset = 0; offset < body.length; offset += 1 << 20) request.write(body.subarray(offset, offset + (1 << 20)));
        request.end();
      });
    const tooLarge = await send(Buffer.alloc(11 * 1024 * 1024, 'a'));
    expect(tooLarge).toEqual({ status: 413, connection: 'close' });
    // The client's pool does not reuse the closed connection: the next request goes through.
    expect(await send()).toEqual({ status: 200, connection: 'keep-alive' });
    agent.destroy();
  });

  /**
   * A client that writes its whole request before it reads the answer (most do), its body well over
   * the limit, in chunks: declared up front (refused at once) or chunked (refused midway). Closing
   * the connection while the body still came reset it, and the client lost the 413 (EPIPE).
   */
  it.each([
    ['declared by its content-length', false],
    ['sent chunked', true],
  ])('lets a client that writes its whole over-limit body first, %s, read the 413', async (_, chunked) => {
    const total = 16 * 1024 * 1024;
    const piece = Buffer.alloc(64 * 1024, 'a');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: api.runtime.port });
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.once('error', (error) => reject(new Error(`${(error as NodeJS.ErrnoException).code}: answer so far ${JSON.stringify(received)}`)));
      socket.once('close', () => resolve(received));
      // Nothing is read until the whole body is written.
      socket.pause();
      const framing = chunked ? 'transfer-encoding: chunked' : `content-length: ${total}`;
      socket.write(`POST /api/incidents HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${alice.token}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`);
      void (async () => {
        for (let sent = 0; sent < total; sent += piece.length) {
          const written = socket.write(chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece);
          if (!written) await new Promise((resolve) => socket.once('drain', resolve));
        }
        if (chunked) socket.write('0\r\n\r\n');
        socket.resume();
      })();
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe('{"message":"Request Entity Too Large"}');
  });
});
