// Octokit's fetch over @actions/http-client, against a real server on 127.0.0.1.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpClientFetch } from './http.js';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('httpClientFetch', () => {
  it('sends the method, headers and body, and gives back status, headers, body and url', async () => {
    const seen: { method?: string; auth?: string; body?: string } = {};
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        Object.assign(seen, { method: req.method, auth: req.headers.authorization, body });
        res.writeHead(201, { 'Content-Type': 'application/json', Link: '<x>; rel="next"' });
        res.end('{"id":7}');
      });
    });
    const answer = await httpClientFetch()(`${url}/repos/o/r/issues`, {
      method: 'POST',
      headers: { authorization: 'token t0ken', 'content-type': 'application/json' },
      body: '{"title":"t"}',
    });
    expect(seen).toEqual({ method: 'POST', auth: 'token t0ken', body: '{"title":"t"}' });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('link')).toBe('<x>; rel="next"');
    expect(await answer.json()).toEqual({ id: 7 });
    expect(answer.url).toBe(`${url}/repos/o/r/issues`);
  });

  it('answers 204 with no body, and never follows a redirect with the token', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/gone') return res.writeHead(302, { Location: 'http://127.0.0.2:9/steal' }).end();
      res.writeHead(204).end();
    });
    const fetch = httpClientFetch();
    expect((await fetch(`${url}/ok`, { method: 'DELETE' })).status).toBe(204);
    const moved = await fetch(`${url}/gone`, { headers: { authorization: 'token t0ken' } });
    expect(moved.status).toBe(302);
  });
});
