// The previews' inputs: one row each (input-row.ts).
import type { InputRow } from '../shared/input-row.js';
import { parseCount, parseDuration, parseEnum } from '../shared/parse.js';
import { FAIL_ON, PREVIEW_CLAWS } from './request.js';

export const PREVIEW_INPUTS = [
  {
    name: 'preview-claws',
    description:
      "preview: which of the manifest's Claws get a preview on a pull request: changed (those whose plan against production has operations) or all.",
    reference:
      "`preview`: which of the manifest's Claws get a preview on a pull request: `changed` (those whose plan against production has operations) or `all`",
    default: 'changed',
    emptyMeansDefault: true,
    group: 'Previews',
    readBy: ['preview'],
    fills: 'previewClaws',
    parse: (v) => parseEnum(v, PREVIEW_CLAWS),
  },
  {
    name: 'preview-ttl',
    description:
      'preview: on a schedule, the sweep removes the previews of pull requests not updated for this long (7d, 48h, …), and those of closed ones.',
    reference:
      '`preview`: on a schedule, the sweep removes the previews of pull requests not updated for this long, and those of closed ones',
    default: '7d',
    emptyMeansDefault: true,
    group: 'Previews',
    readBy: ['preview'],
    fills: 'previewTtlMs',
    parse: parseDuration,
  },
  {
    name: 'max-previews',
    description:
      'preview: the most preview Claws the workspace may hold, counted on every push; a Claw past the cap gets no preview, with a notice (never a failed CI).',
    reference:
      '`preview`: the most preview Claws the workspace may hold, counted on every push; a Claw past the cap gets no preview, with a notice (never a failed CI)',
    default: '10',
    emptyMeansDefault: true,
    group: 'Previews',
    readBy: ['preview'],
    fills: 'maxPreviews',
    parse: parseCount,
  },
  {
    name: 'fail-on',
    description:
      'preview, and deploy with a baseline: what fails the step: regression (preview without a comparison: a check passes in production and not in the preview; with one: a metric is regressed), failure (any check fails), inconclusive (a metric is regressed or inconclusive), or never.',
    reference:
      '`preview`, `compare`, and `deploy` with a `baseline`: what fails the step: `regression` (a metric is `regressed`; a preview without a comparison: a check passes in production and not in the preview), `failure` (any check fails), `inconclusive` (a metric is `regressed` or `inconclusive`), or `never`',
    default: 'regression',
    emptyMeansDefault: true,
    group: 'Comparing (before and after)',
    helpGroup: (reads) => (reads('preview-claws') ? 'Previews' : 'Comparing (before and after)'),
    readBy: ['deploy', 'preview', 'compare'],
    help: {
      compare:
        'compare: what fails the step: regression (a metric of the candidate is regressed against the baseline), failure (any check of the candidate fails), inconclusive (a metric is regressed or inconclusive), or never.',
    },
    fills: 'failOn',
    parse: (v) => parseEnum(v, FAIL_ON),
  },
] as const satisfies readonly InputRow[];
