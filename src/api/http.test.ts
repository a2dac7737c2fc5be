// The HTTP session against real sockets: the body cap, endless bodies, the request timeout over
// the whole exchange, one keep-alive connection, and IPv6 loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HostileServer } from '../../test/sim/hostile.ts';
import { HttpSession } from './http.js';

let server: HostileServer | undefined;
let session: HttpSession | undefined;
afterEach(async () => {
  session?.close();
  await server?.stop();
  server = session = undefined;
});

const KIB = 1024;

async function serve(answer: ConstructorParameters<typeof HostileServer>[0]): Promise<string> {
  server = new HostileServer(answer);
  return server.start();
}

function newSession(maxBodyBytes = 64 * KIB): HttpSession {
  session = new HttpSession({ userAgent: 'test', maxBodyBytes, redact: (t) => t.replaceAll('s3cret-key', '***') });
  return session;
}

const get = (s: HttpSession, url: string, timeoutMs = 5000) => s.send({ method: 'GET', url, headers: {}, timeoutMs });

describe('HttpSession', () => {
  it('reads a body, redacting the key from the text and the headers', async () => {
    const url = await serve(() => ({ body: '{"echo":"s3cret-key"}', headers: { 'X-RateLimit-Reset': 's3cret-key' } }));
    const attempt = await get(newSession(), `${url}/v1/x`);
    expect(attempt).toMatchObject({ kind: 'response', status: 200, text: '{"echo":"***"}', complete: true });
    expect(attempt.kind === 'response' && attempt.headers['x-ratelimit-reset']).toBe('***');
  });

  it('abandons a body over the cap, whatever Content-Length says', async () => {
    const url = await serve(() => ({ body: 'x'.repeat(100 * KIB) }));
    expect(await get(newSession(), `${url}/v1/x`)).toMatchObject({ kind: 'too-large', maxBytes: 64 * KIB });
  });

  it('stops reading an endless chunked body at the cap and drops the connection', async () => {
    const url = await serve(() => ({ endless: 'y'.repeat(16 * KIB) }));
    const attempt = await get(newSession(), `${url}/v1/x`);
    expect(attempt).toMatchObject({ kind: 'too-large', status: 200 });
    // The server can write only what the socket buffers hold once the client stops reading.
    await new Promise((r) => setTimeout(r, 50));
    expect(server?.endlessBytes).toBeLessThan(16 * 1024 * KIB);
  });

  it('bounds the whole exchange, body included, by the request timeout', async () => {
    // Headers at once, then a body that never comes.
    const raw = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"a":');
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    const { port } = raw.address() as AddressInfo;
    const attempt = await get(newSession(), `http://127.0.0.1:${port}/v1/x`, 200);
    expect(attempt).toEqual({ kind: 'no-response', sent: true, reason: 'no response within 200ms', timedOut: true });
    raw.closeAllConnections();
    raw.close();
  });

  it('keeps one connection alive across requests', async () => {
    const url = await serve(() => ({ body: '{}' }));
    const s = newSession();
    for (let i = 0; i < 3; i++) expect((await get(s, `${url}/v1/x`)).kind).toBe('response');
    expect(server?.connections).toBe(1);
  });

  it('reaches an IPv6 loopback address in brackets', async (ctx) => {
    const v6 = http.createServer((_req, res) => res.end('{"ok":true}'));
    const listening = await new Promise<boolean>((resolve) => {
      v6.once('error', () => resolve(false));
      v6.listen(0, '::1', () => resolve(true));
    });
    if (!listening) return ctx.skip(); // no IPv6 loopback on this machine
    const { port } = v6.address() as AddressInfo;
    const attempt = await get(newSession(), `http://[::1]:${port}/v1/x`);
    expect(attempt).toMatchObject({ kind: 'response', status: 200, text: '{"ok":true}' });
    v6.closeAllConnections();
    v6.close();
  });
});
