// The plan as the summary and the comment render it: diff lines, masking, the fence no value can
// close, removals apart, and the comment's cap.
import { describe, expect, it } from 'vitest';
import type { Plan } from './plan.js';
import { MASK } from './diff.js';
import { commentBody, commentMarker, fenced, planMarkdown, planOutputs } from './plan-report.js';

const PLAN: Plan = {
  manifest: 'claws.yml',
  id: '0123456789abcdef',
  changes: 5,
  writes: [],
  blocked: [],
  writeOnly: [
    { clawId: 'claw-support-bot', path: ['connections', 'zendesk', 'token'], diff: { changes: [], writeOnly: [] } },
  ],
  operations: [
    {
      kind: 'update-claw',
      target: 'claw-support-bot',
      changes: [
        { path: ['name'], action: 'add', after: 'Support Bot' },
        { path: ['personality', 'tone'], action: 'change', before: 'formal', after: 'friendly ``` evil' },
        { path: ['retired'], action: 'remove', before: true },
        { path: ['apiKey'], action: 'change', before: MASK, after: MASK },
      ],
    },
    { kind: 'install-skill', target: 'claw-support-bot', skill: 'zendesk-tickets' },
    { kind: 'remove-skill', target: 'claw-support-bot', skill: 'old-skill' },
    { kind: 'invite-member', target: 'dave@example.com', after: 'member' },
    { kind: 'remove-member', target: 'bob@example.com', before: 'member' },
  ],
};

describe('planMarkdown', () => {
  const markdown = planMarkdown(PLAN, { title: 'Plan' });

  it('heads with the counts, lists removals apart, and gives each Claw a diff block', () => {
    expect(markdown).toContain('### 📋 Plan for `claws.yml`: 5 change(s)');
    expect(markdown).toContain(
      '**+2** to add · **~1** to change · **-2** to remove (Claws, skills and members; the lines below are their settings) · plan id `0123456789abcdef`',
    );
    expect(markdown).toContain(
      '#### Removals (2)\n\n- remove skill old-skill from claw-support-bot\n- remove bob&#64;example.com from the team',
    );
    expect(markdown).toContain(
      [
        '+ name: "Support Bot"',
        '! personality.tone: "formal" → "friendly ``` evil"',
        '- retired',
        '! apiKey: "***" → "***"',
        '+ skill zendesk-tickets',
        '- skill old-skill',
        '  connections.zendesk.token: *** (write-only: sent with a patch of this Claw, or with rewrite-secrets)',
      ].join('\n'),
    );
    expect(markdown).toContain(
      '#### Team members\n\n```diff\n+ dave@example.com: member (invite)\n- bob@example.com (member)\n```',
    );
  });

  it('fences a block so that no value inside can close it', () => {
    // The Claw's block holds three backticks: its fence is four.
    expect(markdown).toMatch(/````diff\n\+ name: "Support Bot"[\s\S]*?\n````\n/);
    expect(fenced('diff', ['+ a', '- `````'])).toBe('``````diff\n+ a\n- `````\n``````');
  });

  it('keeps a value to one line of text', () => {
    const plan = { ...PLAN, operations: [{ kind: 'install-skill' as const, target: 'c1', skill: 'a\n```\n## pwned' }] };
    expect(planMarkdown(plan, { title: 'Plan' })).toContain('+ skill a ``` ## pwned');
  });
});

describe('planOutputs', () => {
  it('gives changes, the plan as JSON with masked values, and the id', () => {
    const { outputs } = planOutputs(PLAN);
    expect(outputs.changes).toBe('5');
    expect(outputs['plan-id']).toBe('0123456789abcdef');
    const plan = JSON.parse(outputs.plan) as { writeOnly: unknown[]; operations: unknown[] };
    expect(plan.writeOnly).toEqual([{ clawId: 'claw-support-bot', path: 'connections.zendesk.token' }]);
    expect(plan.operations).toHaveLength(5);
  });
});

describe('commentBody', () => {
  it('starts with a hidden marker naming the manifest, which no path can end', () => {
    expect(commentBody(PLAN, { title: 'Plan' })).toMatch(/^<!-- claw-deploy plan: claws\.yml -->\n### 📋 Plan/);
    expect(commentMarker('a --> b.yml')).toBe('<!-- claw-deploy plan: a%20--%3E%20b.yml -->');
  });

  it('is capped under GitHub’s limit: the counts stay, the diff is cut at a line, its block closed', () => {
    const big: Plan = {
      ...PLAN,
      operations: Array.from({ length: 3000 }, (_, i) => ({
        kind: 'install-skill' as const,
        target: 'c1',
        skill: `skill-${i}`,
      })),
    };
    const body = commentBody(big, { title: 'Plan', runUrl: 'https://github.com/o/r/actions/runs/1' }, 20_000);
    expect(body.length).toBeLessThanOrEqual(20_000);
    expect(body).toContain('**+3000** to add');
    expect(body).toMatch(
      /\n\+ skill skill-\d+\n```\n\n_The plan is cut here: \d+ more line\(s\)\. The full plan is in the job summary of \[this run\]\(https:\/\/github\.com\/o\/r\/actions\/runs\/1\)\._\n$/,
    );
    // The default cap is below GitHub's 65,536 characters.
    expect(commentBody(big, { title: 'Plan' }).length).toBeLessThan(65_536);
  });
});

describe('long values', () => {
  const plan = (operations: Plan['operations'], blocked: Plan['blocked'] = []): Plan => ({
    manifest: 'claws.yml',
    id: 'fedcba9876543210',
    changes: operations.length,
    writes: [],
    blocked,
    writeOnly: [],
    operations,
  });
  const before = Array.from({ length: 40 }, (_, i) => `Rule ${i + 1}: be kind.`).join('\n');
  const after = before.replace('Rule 20: be kind.', 'Rule 20: be kind and brief.');

  it('a changed multi-line value is a line diff under its key, as the summary and the comment render it', () => {
    const markdown = planMarkdown(
      plan([
        {
          kind: 'update-claw',
          target: 'c1',
          changes: [{ path: ['personality', 'prompt'], action: 'change', before, after }],
        },
      ]),
      { title: 'Plan' },
    );
    expect(markdown).toContain(
      [
        '! personality.prompt: text, 1 line(s) removed, 1 added',
        '    … 16 unchanged line(s)',
        '    Rule 17: be kind.',
        '    Rule 18: be kind.',
        '    Rule 19: be kind.',
        '-   Rule 20: be kind.',
        '+   Rule 20: be kind and brief.',
        '    Rule 21: be kind.',
      ].join('\n'),
    );
    expect(
      commentBody(
        plan([{ kind: 'update-claw', target: 'c1', changes: [{ path: ['p'], action: 'change', before, after }] }]),
        { title: 'Plan' },
      ),
    ).toContain('+   Rule 20: be kind and brief.');
  });

  it('a masked value is never diffed, nor shown', () => {
    const markdown = planMarkdown(
      plan([
        {
          kind: 'update-claw',
          target: 'c1',
          changes: [{ path: ['connections', 'token'], action: 'change', before: MASK, after: MASK }],
        },
      ]),
      { title: 'Plan' },
    );
    expect(markdown).toContain('! connections.token: "***" → "***"');
    expect(markdown).not.toContain('line(s) removed');
  });

  it('a create shows a long value whole, + on every line; a removed one is one line with its length', () => {
    const markdown = planMarkdown(
      plan([
        { kind: 'create-claw', target: 'c2', changes: [{ path: ['prompt'], action: 'add', after: before }] },
        { kind: 'update-claw', target: 'c1', changes: [{ path: ['legacy'], action: 'remove', before: after }] },
      ]),
      { title: 'Plan' },
    );
    expect(markdown).toContain('+ prompt: text, 40 line(s)\n+   Rule 1: be kind.\n+   Rule 2: be kind.');
    expect(markdown).toContain('+   Rule 40: be kind.');
    expect(markdown).toContain(`- legacy (was text of ${after.length} characters)`);
  });

  it('the summary holds a 30,000-character value whole', () => {
    const huge = Array.from({ length: 600 }, (_, i) => `Paragraph ${i}: ${'lorem ipsum '.repeat(3)}`).join('\n');
    expect(huge.length).toBeGreaterThan(30_000);
    const markdown = planMarkdown(
      plan([{ kind: 'create-claw', target: 'c3', changes: [{ path: ['prompt'], action: 'add', after: huge }] }]),
      { title: 'Plan' },
    );
    const shown = markdown
      .split('\n')
      .filter((l) => l.startsWith('+   '))
      .map((l) => l.slice(4))
      .join('\n');
    expect(shown).toBe(huge);
    // And a long value on one line (JSON, not text) is not cut either.
    const list = Array.from({ length: 3000 }, (_, i) => `tag-${i}`);
    const markdownList = planMarkdown(
      plan([{ kind: 'update-claw', target: 'c1', changes: [{ path: ['tags'], action: 'add', after: list }] }]),
      { title: 'Plan' },
    );
    expect(markdownList).toContain(`+ tags: ${JSON.stringify(list)}`);
  });

  it('lists what cannot be applied, with the reason escaped', () => {
    const markdown = planMarkdown(
      plan(
        [],
        [
          {
            operation: { kind: 'remove-skill', target: 'c1', skill: '..' },
            reason: 'the skill id ".." is not usable in a path <b>',
          },
        ],
      ),
      { title: 'Plan' },
    );
    expect(markdown).toContain('#### ⚠️ Cannot be applied (1)');
    expect(markdown).toContain(
      '- remove skill .. from c1: the skill id &quot;..&quot; is not usable in a path &lt;b&gt;',
    );
  });
});
