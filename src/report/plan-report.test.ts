// The plan as the summary and the comment render it: diff lines, masking, the fence no value can
// close, removals apart, and the comment's cap.
import { describe, expect, it } from 'vitest';
import type { Plan } from '../manifest/plan.js';
import { MASK } from '../manifest/diff.js';
import { commentBody, commentMarker, fenced, planMarkdown, planOutputs } from './plan-report.js';

const PLAN: Plan = {
  manifest: 'claws.yml',
  id: '0123456789abcdef',
  changes: 5,
  writes: [],
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
    expect(markdown).toContain('**+2** to add · **~1** to change · **-2** to remove · plan id `0123456789abcdef`');
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
