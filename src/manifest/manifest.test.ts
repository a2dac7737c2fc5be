// The manifest reader, merge-patch semantics and masking.
import { describe, expect, it } from 'vitest';
import { MASK, diffConfig, patchToSend } from './diff.js';
import { type ConfigObject, parseManifest } from './manifest.js';

const EXAMPLE = `claws:
  claw-support-bot:
    config:
      name: Support Bot
      personality:
        tone: friendly
        language: en
      connections:
        zendesk:
          token: { env: ZENDESK_TOKEN }
    skills: [web-search, zendesk-tickets]
  claw-sales-bot:
    create: true
    config: { name: Sales Bot }
team:
  members:
    alice@example.com: admin
    bob@example.com: member
prune: [skills]
`;

describe('parseManifest', () => {
  it('reads the example: Claws, env secrets, skills, members and prune', () => {
    const manifest = parseManifest('claws.yml', EXAMPLE, { ZENDESK_TOKEN: 'zd-secret-1' });
    expect(manifest.claws.map((c) => [c.id, c.create, c.skills])).toEqual([
      ['claw-support-bot', false, ['web-search', 'zendesk-tickets']],
      ['claw-sales-bot', true, undefined],
    ]);
    const token = (manifest.claws[0].config?.connections as ConfigObject).zendesk as ConfigObject;
    expect(token.token).toEqual({ kind: 'env', name: 'ZENDESK_TOKEN', value: 'zd-secret-1', line: 10 });
    expect(manifest.members).toEqual([
      ['alice@example.com', 'admin'],
      ['bob@example.com', 'member'],
    ]);
    expect([...manifest.prune]).toEqual(['skills']);
  });

  it('leaves an unset variable unknown (a plan on a fork has no secrets)', () => {
    const manifest = parseManifest('claws.yml', EXAMPLE, {});
    const zendesk = (manifest.claws[0].config?.connections as ConfigObject).zendesk as ConfigObject;
    expect(zendesk.token).toMatchObject({ kind: 'env', name: 'ZENDESK_TOKEN', value: undefined });
  });

  it.each<[string, string, RegExp]>([
    ['a syntax error', 'claws:\n  a: {config: [\n', /^m\.yml, line \d: the manifest is not valid YAML: /],
    [
      'an unknown key',
      'claws:\n  c1:\n    skils: [a]\n',
      /^m\.yml, line 3: unknown key 'skils' in 'c1': expected 'config', 'skills', 'create'\.$/,
    ],
    [
      'an unknown top-level key',
      'claw:\n  c1: {}\n',
      /^m\.yml, line 1: unknown key 'claw' in the manifest: expected 'claws', 'team', 'prune'\.$/,
    ],
    [
      'a role that is not a string',
      'team:\n  members:\n    a@x.io: [admin]\n',
      /^m\.yml, line 3: 'a@x\.io' is "\[\\"admin\\"\]": expected a role such as admin or member, for a@x\.io\.$/,
    ],
    [
      'a skill id that is not a string',
      'claws:\n  c1:\n    skills: [1]\n',
      /^m\.yml, line 3: a skill of Claw c1 is not a string: expected a skill id\.$/,
    ],
    [
      'prune: [members] with no team section',
      'claws:\n  c1: {skills: [a]}\nprune: [skills, members]\n',
      /^m\.yml, line 3: 'prune' names members, but the manifest declares no 'team\.members' to keep: expected 'team\.members', or 'members' out of 'prune'\.$/,
    ],
    [
      'prune: [skills] where no Claw lists skills',
      'claws:\n  c1: {config: {name: x}}\nprune:\n  - skills\n',
      /^m\.yml, line 4: 'prune' names skills, but no Claw of the manifest lists 'skills' to keep/,
    ],
    [
      'prune naming something else',
      'claws:\n  c1: {skills: [a]}\nprune: [claws]\n',
      /^m\.yml, line 3: 'prune' holds "claws": expected one of skills, members\.$/,
    ],
    [
      'a Claw id that is not an id',
      'claws:\n  "a/b": {}\n',
      /^m\.yml, line 2: the Claw id "a\/b" is not usable: expected an identifier/,
    ],
    [
      'an env name that is not one',
      'claws:\n  c1:\n    config: {token: {env: "A B"}}\n',
      /^m\.yml, line 3: 'env' is "A B": expected the name of an environment variable/,
    ],
    [
      'create that is not a boolean',
      'claws:\n  c1: {create: yes please}\n',
      /^m\.yml, line 2: 'create' is "yes please": expected true or false\.$/,
    ],
    [
      'nothing declared',
      'prune: []\n',
      /^m\.yml, line 1: the manifest declares nothing: expected 'claws', 'team\.members', or both\.$/,
    ],
  ])('refuses %s with one error naming the file and the line', (_, text, message) => {
    expect(() => parseManifest('m.yml', text)).toThrow(message);
  });
});

describe('diffConfig: a JSON merge patch (RFC 7396)', () => {
  const current = {
    id: 'c1',
    status: 'online',
    name: 'Support',
    personality: { tone: 'formal', language: 'en', emoji: true },
    tags: ['a', 'b'],
    retired: 'yes',
  };

  it('sets declared keys, merges nested objects, replaces arrays, removes null, never touches the rest', () => {
    const diff = diffConfig(
      {
        name: 'Support Bot',
        personality: { tone: 'friendly', language: 'en' },
        tags: ['a'],
        retired: null,
        gone: null,
      },
      current,
    );
    expect(diff.patch).toEqual({ name: 'Support Bot', personality: { tone: 'friendly' }, tags: ['a'], retired: null });
    expect(diff.changes.map((c) => [c.path.join('.'), c.action])).toEqual([
      ['name', 'change'],
      ['personality.tone', 'change'],
      ['tags', 'change'],
      ['retired', 'remove'],
    ]);
    // `status`, `id`, `personality.emoji`: not declared, never in the patch.
    expect(JSON.stringify(diff.patch)).not.toMatch(/status|emoji|"id"/);
  });

  it('has no patch when the Claw already matches, key order aside', () => {
    expect(
      diffConfig({ personality: { language: 'en', tone: 'formal' }, tags: ['a', 'b'] }, current).patch,
    ).toBeUndefined();
  });

  it('an object over a value that is not one replaces it', () => {
    const diff = diffConfig({ retired: { since: 2024 } }, current);
    expect(diff.patch).toEqual({ retired: { since: 2024 } });
    expect(diff.changes).toEqual([{ path: ['retired', 'since'], action: 'add', before: undefined, after: 2024 }]);
  });

  it('masks values under secret-looking keys, before and after, but still compares them', () => {
    const have = { connections: { crm: { apiKey: 'old-key', url: 'https://crm' } }, password: 'hunter2' };
    const diff = diffConfig(
      { connections: { crm: { apiKey: 'new-key', url: 'https://crm' } }, password: 'hunter2' },
      have,
    );
    expect(diff.changes).toEqual([
      { path: ['connections', 'crm', 'apiKey'], action: 'change', before: MASK, after: MASK },
    ]);
    expect(diff.patch).toEqual({ connections: { crm: { apiKey: 'new-key' } } });
    for (const key of ['token', 'clientSecret', 'db_password', 'api_key', 'credentials', 'private-key']) {
      const changes = diffConfig({ [key]: 'new' }, { [key]: 'old' }).changes;
      expect(changes[0], key).toMatchObject({ before: MASK, after: MASK });
    }
  });

  it('lists an env secret as write-only: never compared, never counted, sent with a patch', () => {
    const secret = { kind: 'env', name: 'ZENDESK_TOKEN', value: 'zd-1', line: 3 } as const;
    const diff = diffConfig({ name: 'Bot', connections: { zendesk: { token: secret } } }, { name: 'Old' });
    expect(diff.changes.map((c) => c.path.join('.'))).toEqual(['name']);
    expect(diff.writeOnly).toEqual([{ path: ['connections', 'zendesk', 'token'], action: 'write-only', after: MASK }]);
    expect(patchToSend(diff, true)).toEqual({ name: 'Bot', connections: { zendesk: { token: 'zd-1' } } });
    // Nothing else to change: the secret alone is sent only when asked (rotation).
    const alone = diffConfig({ connections: { zendesk: { token: secret } } }, {});
    expect(alone.patch).toBeUndefined();
    expect(patchToSend(alone, true)).toEqual({ connections: { zendesk: { token: 'zd-1' } } });
  });
});
