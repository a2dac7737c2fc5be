// The whole plan, somewhere a reviewer can read it when the comment is capped: as Markdown (every
// value whole, secrets masked) and as JSON (the operations with whole values, masked), written
// under the runner's temporary folder for actions/upload-artifact.
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeOutputFile } from '../config/output-file.js';
import { type Plan, planJson } from './plan.js';
import { type PlanView, planMarkdown } from './plan-report.js';

export interface PlanFiles {
  markdown: string;
  json: string;
}

/** Writes both files into `dir`; their names carry the manifest's name and the plan id. */
export async function writePlanFiles(
  plan: Plan,
  view: PlanView,
  dir: string,
  redact: (text: string) => string = (text) => text,
): Promise<PlanFiles> {
  const stem = `claw-plan-${basename(plan.manifest).replace(/[^\w.-]+/g, '_')}-${plan.id}`;
  await mkdir(dir, { recursive: true });
  const files = { markdown: join(dir, `${stem}.md`), json: join(dir, `${stem}.json`) };
  // As every report: a regular file replaced whole, a device or FIFO written through, never a link followed out.
  await writeOutputFile(files.markdown, dir, redact(planMarkdown(plan, view)));
  await writeOutputFile(files.json, dir, redact(`${JSON.stringify(planJson(plan), null, 2)}\n`));
  return files;
}
