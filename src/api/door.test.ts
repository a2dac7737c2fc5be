// One redactor for the run, at the door: what the service sends back is redacted of every secret
// the run knows (a judge's key, a manifest's secret), not only its own key, before JSON.parse
// decodes an escaped spelling and before any message cuts it in two.
import { afterEach, describe, expect, it } from 'vitest';
import { HostileServer } from '../../test/sim/hostile.ts';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { RecordingLogger } from '../../test/support/setup.ts';
import { Redactor } from './redact.js';
import { Transport } from './transport.js';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("the transport's door", () => {
  it("redacts a judge key the service echoes, \\u-escaped, with the run's one redactor", async () => {
    const judgeKey = 'sk-judge/Hq3+Tn8Vc5Mb1';
    const escaped = [...judgeKey].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    server = new HostileServer(() => ({ body: `{"id":"c1","note":"${'z'.repeat(190)}${escaped}"}` }));
    const url = await server.start();
    const secrets = new Redactor([judgeKey]);
    const transport = new Transport({
      baseUrl: url,
      apiKey: 'ams-service-key-0123456789',
      authScheme: 'Bearer',
      requestTimeoutMs: 2000,
      clock: new FakeClock(),
      log: new RecordingLogger(),
      redactor: secrets,
    });
    try {
      const res = await transport.request({
        method: 'GET',
        route: '/claws/:id',
        params: { id: 'c1' },
        scope: '',
        what: 'x',
      });
      const note = (res.body as { note: string }).note;
      expect(note).toBe(`${'z'.repeat(190)}***`);
      // The transport's own key joined the run's list.
      expect(secrets.redact('ams-service-key-0123456789')).toBe('***');
    } finally {
      transport.close();
    }
  });
});
