import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret, signatureHeaders } from '../../shared/webhooks/signing.js';
import {
  checkTarget,
  classifyAddress,
  deliver,
  MAX_URL_LENGTH,
  parseTarget,
  TargetRefused,
  loopbackPortsFrom,
  type AddressClass,
  type TargetOptions,
  type Resolver,
} from '../../shared/webhooks/target.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const { Webhook } = createRequire(import.meta.url)('standardwebhooks') as typeof import('standardwebhooks');

const deployed = {};
/** The local runtime with LOCAL_WEBHOOK_PORTS naming `ports` (8080 and 8443 unless said). */
const localTo = (...ports: number[]): TargetOptions => ({ loopbackPorts: ports.length ? ports : [8080, 8443] });
const local = localTo();

/** A resolver answering from a table (names the machine itself cannot resolve), counting its calls. */
function resolverOf(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { calls });
}

const failingResolver = (code: string): Resolver => async () => {
  throw Object.assign(new Error(`getaddrinfo ${code}`), { code });
};

async function refusal(promise: Promise<unknown>): Promise<TargetRefused> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TargetRefused);
  return error as TargetRefused;
}

describe('address classes', () => {
  const refused: Array<[string, AddressClass]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.170.2', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['::8.8.8.8', 'reserved'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['64:ff9b::c0a8:1', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::', 'link-local'],
    ['2002:c0a8:101::1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'],
  ];
  it.each(refused)('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  const publicAddresses = [
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '169.255.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450::1',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  it.each(publicAddresses)('%s is public', (address) => {
    expect(classifyAddress(address)).toBeUndefined();
  });
});

describe('checking a webhook URL', () => {
  const publicDns = resolverOf({ 'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });

  it('accepts https to a name resolving to public addresses, and answers them all', async () => {
    const target = await checkTarget('https://hooks.example.com/incidents?x=1', { ...deployed, resolve: publicDns });
    expect(target.host).toBe('hooks.example.com');
    expect(target.addresses.map(({ address }) => address)).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
    expect(target.addresses.map(({ family }) => family)).toEqual([4, 6]);
  });

  it('accepts a public IP literal without asking DNS', async () => {
    const resolve = resolverOf({});
    expect((await checkTarget('https://8.8.8.8/hook', { ...deployed, resolve })).addresses).toEqual([{ address: '8.8.8.8', family: 4 }]);
    expect((await checkTarget('https://[2606:4700::1111]/hook', { ...deployed, resolve })).addresses).toEqual([{ address: '2606:4700::1111', family: 6 }]);
    expect(resolve.calls).toEqual([]);
  });

  it('refuses what is not a URL, and an overlong one', async () => {
    expect((await refusal(checkTarget('hooks.example.com/x', deployed))).message).toBe('URL is not valid');
    expect((await refusal(checkTarget('https://', deployed))).message).toBe('URL is not valid');
    const long = `https://hooks.example.com/${'a'.repeat(MAX_URL_LENGTH)}`;
    const error = await refusal(checkTarget(long, { ...deployed, resolve: publicDns }));
    expect([error.reason, error.message]).toEqual(['too_long', 'URL is too long (limit 2000 characters)']);
  });

  it('refuses every scheme but https', async () => {
    for (const url of ['http://hooks.example.com/x', 'ftp://hooks.example.com/x', 'file:///etc/passwd', 'ws://hooks.example.com/', 'http://127.0.0.1:8080/']) {
      const error = await refusal(checkTarget(url, { ...deployed, resolve: publicDns }));
      expect([error.reason, error.message]).toEqual(['scheme', 'URL must use https']);
    }
  });

  it('refuses credentials in the URL, without repeating them', async () => {
    for (const url of ['https://user:s3cret@hooks.example.com/x', 'https://user@hooks.example.com/x', 'https://:s3cret@hooks.example.com/']) {
      const error = await refusal(checkTarget(url, { ...deployed, resolve: publicDns }));
      expect([error.reason, error.message]).toEqual(['credentials', 'URL must not contain credentials']);
    }
  });

  const classTexts: Array<[string, string]> = [
    ['https://127.0.0.1/', 'URL points to a loopback address (127.0.0.1)'],
    ['https://10.0.0.1/', 'URL points to a private address (10.0.0.1)'],
    ['https://169.254.169.254/latest/meta-data/', 'URL points to a link-local address (169.254.169.254)'],
    ['https://100.64.1.1/', 'URL points to a shared (carrier-grade NAT) address (100.64.1.1)'],
    ['https://224.0.0.251/', 'URL points to a multicast address (224.0.0.251)'],
    ['https://0.0.0.0/', 'URL points to an unspecified address (0.0.0.0)'],
    ['https://255.255.255.255/', 'URL points to a broadcast address (255.255.255.255)'],
    ['https://240.1.2.3/', 'URL points to a reserved address (240.1.2.3)'],
    ['https://192.0.2.10/', 'URL points to a documentation address (192.0.2.10)'],
    ['https://[::1]/', 'URL points to a loopback address (::1)'],
    ['https://[fd00::1]/', 'URL points to a private address (fd00::1)'],
    ['https://[fe80::1]/', 'URL points to a link-local address (fe80::1)'],
    ['https://[ff02::1]/', 'URL points to a multicast address (ff02::1)'],
    ['https://[::]/', 'URL points to an unspecified address (::)'],
    ['https://[2001:db8::1]/', 'URL points to a documentation address (2001:db8::1)'],
    ['https://[::ffff:127.0.0.1]/', 'URL points to a loopback address (::ffff:7f00:1)'],
    ['https://[::ffff:7f00:1]/', 'URL points to a loopback address (::ffff:7f00:1)'],
    ['https://[::127.0.0.1]/', 'URL points to a loopback address (::7f00:1)'],
    ['https://[64:ff9b::169.254.169.254]/', 'URL points to a link-local address (64:ff9b::a9fe:a9fe)'],
    ['https://[2002:a9fe:a9fe::1]/', 'URL points to a link-local address (2002:a9fe:a9fe::1)'],
  ];
  it.each(classTexts)('refuses %s', async (url, text) => {
    const resolve = resolverOf({});
    const error = await refusal(checkTarget(url, { ...deployed, resolve }));
    expect([error.reason, error.message]).toEqual(['address', text]);
    expect(resolve.calls).toEqual([]);
  });

  const oddForms: Array<[string, string]> = [
    ['https://2130706433/', 'URL points to a loopback address (127.0.0.1)'],
    ['https://0177.0.0.1/', 'URL points to a loopback address (127.0.0.1)'],
    ['https://0x7f.0.0.1/', 'URL points to a loopback address (127.0.0.1)'],
    ['https://0x7f000001/', 'URL points to a loopback address (127.0.0.1)'],
    ['https://127.1/', 'URL points to a loopback address (127.0.0.1)'],
    ['https://0251.0376.0251.0376/', 'URL points to a link-local address (169.254.169.254)'],
    ['https://0xa9fea9fe/', 'URL points to a link-local address (169.254.169.254)'],
    ['https://0/', 'URL points to an unspecified address (0.0.0.0)'],
    ['https://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'URL points to a link-local address (::ffff:a9fe:a9fe)'],
  ];
  it.each(oddForms)('normalises the odd IPv4 form %s and refuses it', async (url, text) => {
    const error = await refusal(checkTarget(url, { ...deployed, resolve: resolverOf({}) }));
    expect(error.message).toBe(text);
  });

  it('refuses a name that resolves to a private address, and one with any such answer among public ones', async () => {
    const resolve = resolverOf({
      'internal.example.com': ['10.0.0.5'],
      'mixed.example.com': ['93.184.215.14', '169.254.169.254'],
      'mapped.example.com': ['2606:4700::1111', '::ffff:192.168.0.1'],
    });
    let error = await refusal(checkTarget('https://internal.example.com/x', { ...deployed, resolve }));
    expect([error.reason, error.message, error.addressClass]).toEqual(['address', 'URL resolves to a private address (10.0.0.5)', 'private']);
    error = await refusal(checkTarget('https://mixed.example.com/x', { ...deployed, resolve }));
    expect(error.message).toBe('URL resolves to a link-local address (169.254.169.254)');
    error = await refusal(checkTarget('https://mapped.example.com/x', { ...deployed, resolve }));
    expect(error.message).toBe('URL resolves to a private address (::ffff:192.168.0.1)');
  });

  it('refuses a name that does not resolve, or whose resolution fails', async () => {
    let error = await refusal(checkTarget('https://nowhere.example.com/', { ...deployed, resolve: resolverOf({}) }));
    expect([error.reason, error.message]).toEqual(['unresolvable', 'URL host does not resolve']);
    error = await refusal(checkTarget('https://nowhere.example.com/', { ...deployed, resolve: failingResolver('ENOTFOUND') }));
    expect(error.message).toBe('URL host does not resolve');
    error = await refusal(checkTarget('https://nowhere.example.com/', { ...deployed, resolve: failingResolver('EAI_AGAIN') }));
    expect([error.reason, error.message]).toEqual(['unresolvable', 'URL host could not be resolved (EAI_AGAIN)']);
  });

  describe("the local runtime's opt-in", () => {
    it('allows plain http to loopback with a port: 127.0.0.1, [::1] and localhost (resolved by the system)', async () => {
      expect((await checkTarget('http://127.0.0.1:8080/hook', local)).addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
      expect((await checkTarget('http://127.0.0.7:8080/hook', local)).addresses).toEqual([{ address: '127.0.0.7', family: 4 }]);
      expect((await checkTarget('http://[::1]:8080/hook', local)).addresses).toEqual([{ address: '::1', family: 6 }]);
      const target = await checkTarget('http://localhost:8080/hook', local);
      expect(target.addresses.length).toBeGreaterThan(0);
      expect(target.addresses.every(({ address }) => classifyAddress(address) === 'loopback')).toBe(true);
    });

    it('allows https to a name resolving to loopback', async () => {
      const resolve = resolverOf({ 'hooks.example.test': ['127.0.0.1'] });
      expect((await checkTarget('https://hooks.example.test:8443/', { ...local, resolve })).addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
    });

    it('refuses plain http anywhere else, or without a port', async () => {
      const resolve = resolverOf({ 'hooks.example.com': ['93.184.215.14'], localhost: ['93.184.215.14'] });
      const text = 'URL must use https (plain http only to a loopback address with a port)';
      for (const url of ['http://hooks.example.com:8080/', 'http://10.0.0.1:8080/', 'http://127.0.0.1/', 'http://localhost/', 'http://localhost:80/', 'http://localhost:8080/']) {
        const error = await refusal(checkTarget(url, { ...local, resolve }));
        expect([url, error.reason, error.message]).toEqual([url, 'scheme', text]);
      }
      expect((await refusal(checkTarget('ftp://127.0.0.1:21/', local))).message).toBe('URL must use https');
    });

    it('reaches only the ports the user named: any other port of this machine is refused, the request never sent', async () => {
      const text = (verb: string, port: number, address: string) => `URL ${verb} port ${port} of this machine, which LOCAL_WEBHOOK_PORTS does not name (${address})`;
      const resolve = resolverOf({ 'hooks.example.test': ['127.0.0.1'] });
      for (const [url, message] of [
        ['http://127.0.0.1:8000/', text('points to', 8000, '127.0.0.1')],
        ['http://[::1]:3000/', text('points to', 3000, '::1')],
        ['https://127.0.0.1:8005/', text('points to', 8005, '127.0.0.1')],
        ['https://hooks.example.test/', text('resolves to', 443, '127.0.0.1')],
        ['http://localhost:8000/', text('resolves to', 8000, '127.0.0.1')],
      ] as const) {
        const error = await refusal(checkTarget(url, { ...local, resolve: url.includes('localhost') ? resolverOf({ localhost: ['127.0.0.1'] }) : resolve }));
        expect([url, error.reason, error.addressClass, error.message]).toEqual([url, 'address', 'loopback', message]);
      }
      // Locally with no port named at all: none is reached, and the refusal says what to set.
      expect((await refusal(checkTarget('http://127.0.0.1:9000/', { loopbackPorts: [] }))).message).toBe(text('points to', 9000, '127.0.0.1'));
      // A service listening on a port nobody named (DynamoDB Local, the runtime's own API) gets no request, and nothing is read back from it.
      const service = await startReceiver((_request, response) => response.writeHead(200).end('{"TableNames":["secret-table"]}'));
      try {
        const result = await deliver(`${service.origin}/`, {}, '{}', local);
        expect(result).toMatchObject({ refused: true, response_excerpt: '', error: text('points to', service.port, '127.0.0.1') });
        expect(result).not.toHaveProperty('status');
        expect(service.requests).toEqual([]);
      } finally {
        await service.close();
      }
    });

    it('reads the named ports from the functions\' environment, ignoring anything that is not a port', () => {
      expect(loopbackPortsFrom('9000, 9001,x,0,70000,')).toEqual([9000, 9001]);
      expect(loopbackPortsFrom('')).toEqual([]);
    });

    it('still refuses every other private address', async () => {
      const resolve = resolverOf({ 'lan.example.test': ['192.168.1.20'] });
      expect((await refusal(checkTarget('https://10.0.0.1/', local))).message).toBe('URL points to a private address (10.0.0.1)');
      expect((await refusal(checkTarget('https://169.254.169.254/', local))).message).toBe('URL points to a link-local address (169.254.169.254)');
      expect((await refusal(checkTarget('https://lan.example.test/', { ...local, resolve }))).message).toBe('URL resolves to a private address (192.168.1.20)');
    });
  });

  it('parseTarget settles what the URL alone says, before DNS', () => {
    expect(parseTarget('https://hooks.example.com/x', deployed).literal).toBeUndefined();
    expect(() => parseTarget('https://10.0.0.1/x', deployed)).toThrow('URL points to a private address (10.0.0.1)');
  });
});

describe('delivering', () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  const body = JSON.stringify({ type: 'ping', timestamp: '2026-11-21T10:05:00.000Z', data: { text: 'Grüße' } });

  it('POSTs the body with its signature headers; the receiver verifies them with standardwebhooks', async () => {
    receiver = await startReceiver();
    const secret = generateSecret();
    const headers = signatureHeaders({ id: 'msg_1', body, secrets: [secret] });
    const result = await deliver(`${receiver.origin}/hooks/in?team=ops`, headers, body, localTo(receiver.port));
    expect(result).toEqual({ status: 204, duration_ms: expect.any(Number), response_excerpt: '' });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    const [received] = receiver.requests;
    expect(received).toMatchObject({ method: 'POST', path: '/hooks/in?team=ops', body });
    expect(received!.headers).toMatchObject({
      host: `127.0.0.1:${receiver.port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'incident-service-webhooks/1',
    });
    expect(new Webhook(secret).verify(received!.body, received!.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it('keeps the status, the first 1 KB of the body and Retry-After of a failure', async () => {
    receiver = await startReceiver((_request, response) => response.writeHead(429, { 'retry-after': '120' }).end('slow down'));
    expect(await deliver(`${receiver.origin}/`, {}, body, localTo(receiver.port))).toEqual({
      status: 429,
      duration_ms: expect.any(Number),
      response_excerpt: 'slow down',
      retry_after: '120',
    });
  });

  it('follows no redirect', async () => {
    receiver = await startReceiver((request, response) => {
      if (request.path === '/moved') response.writeHead(302, { location: '/elsewhere' }).end('see elsewhere');
      else response.writeHead(204).end();
    });
    const result = await deliver(`${receiver.origin}/moved`, {}, body, localTo(receiver.port));
    expect(result).toMatchObject({ status: 302, error: 'Redirect not followed', response_excerpt: 'see elsewhere' });
    expect(receiver.requests.map(({ path }) => path)).toEqual(['/moved']);
  });

  it('reads at most 1 KB of a large body, and never cuts a character in two', async () => {
    receiver = await startReceiver((request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(request.path === '/ascii' ? 'x'.repeat(1_000_000) : `a${'é'.repeat(1000)}`);
    });
    const ascii = await deliver(`${receiver.origin}/ascii`, {}, body, localTo(receiver.port));
    expect(ascii.response_excerpt).toBe('x'.repeat(1024));
    // 'a' and 511 'é' fill 1,023 bytes; the 1,024th is half an 'é', left out.
    expect((await deliver(`${receiver.origin}/accents`, {}, body, localTo(receiver.port))).response_excerpt).toBe(`a${'é'.repeat(511)}`);
  });

  it('does not wait for the rest of a body that never ends once it has 1 KB', async () => {
    receiver = await startReceiver((_request, response) => {
      response.writeHead(200);
      response.write('y'.repeat(2048));
    });
    // With the default 10 s limit: the result comes when 1 KB is read, with no error.
    expect(await deliver(`${receiver.origin}/`, {}, body, localTo(receiver.port))).toEqual({ status: 200, duration_ms: expect.any(Number), response_excerpt: 'y'.repeat(1024) });
  });

  it('gives up on a receiver that never answers after the timeout', async () => {
    receiver = await startReceiver(() => undefined);
    expect(await deliver(`${receiver.origin}/`, {}, body, { ...localTo(receiver.port), timeoutMs: 300 })).toEqual({
      duration_ms: expect.any(Number),
      error: 'Timed out after 300 ms',
      response_excerpt: '',
    });
    expect(receiver.requests).toHaveLength(1);
  });

  it('counts the body in the timeout: headers then silence is a timeout, with the status kept', async () => {
    receiver = await startReceiver((_request, response) => {
      response.writeHead(200);
      response.write('partial');
    });
    expect(await deliver(`${receiver.origin}/`, {}, body, { ...localTo(receiver.port), timeoutMs: 300 })).toEqual({
      status: 200,
      duration_ms: expect.any(Number),
      error: 'Timed out after 300 ms',
      response_excerpt: 'partial',
    });
  });

  it('reports a refused connection without throwing', async () => {
    const closed = await startReceiver();
    await closed.close();
    const result = await deliver(`${closed.origin}/`, {}, body, localTo(closed.port));
    expect(result.status).toBeUndefined();
    expect(result.error).toMatch(/^ECONNREFUSED: /);
    expect(result.refused).toBeUndefined();
  });

  it('refuses a target without sending anything, and never throws for it', async () => {
    receiver = await startReceiver();
    expect(await deliver(`${receiver.origin}/`, {}, body, deployed)).toEqual({
      duration_ms: expect.any(Number),
      error: 'URL must use https',
      refused: true,
      response_excerpt: '',
    });
    expect((await deliver(`https://127.0.0.1:${receiver.port}/`, {}, body, deployed)).error).toBe('URL points to a loopback address (127.0.0.1)');
    expect((await deliver('not a url', {}, body, deployed)).error).toBe('URL is not valid');
    const resolve = resolverOf({ 'hooks.example.test': ['10.0.0.7'] });
    expect(await deliver('https://hooks.example.test/', {}, body, { ...deployed, resolve })).toMatchObject({
      error: 'URL resolves to a private address (10.0.0.7)',
      refused: true,
    });
    expect(receiver.requests).toEqual([]);
  });

  it('reports a failed resolution as a network error (not a refusal), and bounds a resolution that hangs', async () => {
    expect(await deliver('https://hooks.example.com/', {}, body, { ...deployed, resolve: failingResolver('EAI_AGAIN') })).toEqual({
      duration_ms: expect.any(Number),
      error: 'URL host could not be resolved (EAI_AGAIN)',
      response_excerpt: '',
    });
    const hanging: Resolver = () => new Promise(() => undefined);
    expect(await deliver('https://hooks.example.com/', {}, body, { ...deployed, resolve: hanging, timeoutMs: 200 })).toEqual({
      duration_ms: expect.any(Number),
      error: 'Timed out after 200 ms',
      response_excerpt: '',
    });
  });
});

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasOpenssl)('delivering over TLS to the checked address', () => {
  let dir: string;
  let tls: { key: string; cert: string };
  let receiver: Receiver;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=hooks.example.test',
        '-addext', 'subjectAltName=DNS:hooks.example.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    receiver = await startReceiver(undefined, tls);
  });
  afterAll(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resolves once and connects to the checked address, keeping the name for Host, SNI and the certificate', async () => {
    // The machine's DNS knows no such name: only a connection pinned to the checked answer reaches the receiver.
    const resolve = resolverOf({ 'hooks.example.test': ['127.0.0.1'] });
    const result = await deliver(`https://hooks.example.test:${receiver.port}/in`, { 'webhook-id': 'msg_1' }, '{}', { ...localTo(receiver.port), resolve, ca: tls.cert });
    expect(result).toEqual({ status: 204, duration_ms: expect.any(Number), response_excerpt: '' });
    expect(resolve.calls).toEqual(['hooks.example.test']);
    const received = receiver.requests.at(-1)!;
    expect(received.headers.host).toBe(`hooks.example.test:${receiver.port}`);
    expect(received.servername).toBe('hooks.example.test');
    expect(received.headers['webhook-id']).toBe('msg_1');
  });

  it("checks the certificate against the URL's name, not the address", async () => {
    const before = receiver.requests.length;
    const resolve = resolverOf({ 'other.example.test': ['127.0.0.1'] });
    const result = await deliver(`https://other.example.test:${receiver.port}/in`, {}, '{}', { ...localTo(receiver.port), resolve, ca: tls.cert });
    expect(result.status).toBeUndefined();
    expect(result.error).toMatch(/^ERR_TLS_CERT_ALTNAME_INVALID: /);
    expect(receiver.requests).toHaveLength(before);
  });

  it('trusts only the system authorities unless told otherwise', async () => {
    const resolve = resolverOf({ 'hooks.example.test': ['127.0.0.1'] });
    const result = await deliver(`https://hooks.example.test:${receiver.port}/in`, {}, '{}', { ...localTo(receiver.port), resolve });
    expect(result.error).toMatch(/^DEPTH_ZERO_SELF_SIGNED_CERT: /);
  });

  it('refuses a name resolving to loopback without the opt-in, before connecting', async () => {
    const before = receiver.requests.length;
    const resolve = resolverOf({ 'hooks.example.test': ['127.0.0.1'] });
    const result = await deliver(`https://hooks.example.test:${receiver.port}/in`, {}, '{}', { ...deployed, resolve, ca: tls.cert });
    expect(result).toMatchObject({ error: 'URL resolves to a loopback address (127.0.0.1)', refused: true });
    expect(receiver.requests).toHaveLength(before);
  });
});
