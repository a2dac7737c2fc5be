// Opt-in (npm run test:promptfoo), with promptfoo itself installed apart: promptfoo imports the
// output file a gate wrote (`promptfoo import`) and lists its results (`promptfoo export`); and
// verdicts.json is still promptfoo's word on the shared cases.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runAction } from '../e2e/harness.ts';
import { inputsFor, simulatorPerTest } from '../e2e/service.ts';
import { promptfooCompareVerdicts, promptfooVerdicts } from './promptfoo-verdicts.ts';
import compared from './compare-verdicts.json' with { type: 'json' };
import recorded from './verdicts.json' with { type: 'json' };

const INSTALL = join(import.meta.dirname, '.install', 'node_modules', 'promptfoo');
const start = simulatorPerTest();
// promptfoo keeps its database under PROMPTFOO_CONFIG_DIR: a folder of this run's own.
const env = {
  ...process.env,
  PROMPTFOO_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'promptfoo-db-')),
  PROMPTFOO_DISABLE_TELEMETRY: '1',
  PROMPTFOO_DISABLE_UPDATE: '1',
  NO_COLOR: '1',
};
const promptfoo = (...args: string[]): string =>
  execFileSync(process.execPath, [join(INSTALL, 'dist', 'src', 'entrypoint.js'), ...args], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

describe('promptfoo itself', () => {
  it('imports the output file a check run wrote, and lists every result', async () => {
    const s = await start();
    s.addClaw('c1', {
      chat: {
        mode: 'sync',
        respond: (m) => (m.includes('French') ? 'Bonjour le monde' : '¿Dónde está la biblioteca?'),
      },
    });
    s.addClaw('c2', {
      chat: { mode: 'sync', respond: (m) => (m.includes('French') ? 'Bonjour le monde' : 'Where is the library?') },
    });
    const dir = mkdtempSync(join(tmpdir(), 'claw-workspace-'));
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `description: 'Getting started'
prompts:
  - 'Convert this English to {{language}}: {{input}}'
  - 'Translate to {{language}}: {{input}}'
providers: [openai:gpt-4.1, openai:o4-mini]
tests:
  - vars: {language: French, input: Hello world}
    assert: [{type: contains, value: 'Bonjour le monde'}]
  - vars: {language: Spanish, input: Where is the library?}
    assert: [{type: icontains, value: 'Dónde está la biblioteca', weight: 2, metric: accuracy}]
`,
    );
    const run = await runAction(
      inputsFor(s, {
        command: 'check',
        'claw-id': 'c1,c2',
        checks: 'promptfooconfig.yaml',
        'checks-output': 'results.json',
      }),
      {
        env: { GITHUB_WORKSPACE: dir },
      },
    );
    expect(run.outputs['checks-passed']).toBe('false');
    const file = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { evalId: string };

    const imported = promptfoo('import', join(dir, 'results.json'));
    console.log(imported.trim());
    expect(imported).toContain(`Eval with ID ${file.evalId} has been successfully imported.`);
    expect(promptfoo('list', 'evals')).toContain(file.evalId);
    promptfoo('export', 'eval', file.evalId, '-o', join(dir, 'exported.json'));
    const exported = JSON.parse(readFileSync(join(dir, 'exported.json'), 'utf8')) as {
      results: {
        prompts: { provider: string }[];
        results: { success: boolean; provider: { id: string }; response?: { output: string } }[];
      };
    };
    expect(exported.results.prompts.map((p) => p.provider)).toEqual(['claw:c1', 'claw:c1', 'claw:c2', 'claw:c2']);
    expect(exported.results.results.map((r) => `${r.provider.id} ${r.success}`).sort()).toEqual(
      [
        'claw:c1 true',
        'claw:c1 true',
        'claw:c1 true',
        'claw:c1 true',
        'claw:c2 true',
        'claw:c2 true',
        'claw:c2 false',
        'claw:c2 false',
      ].sort(),
    );
    console.log(`promptfoo import: ${exported.results.results.length} results listed for ${file.evalId}`);
  });

  it("verdicts.json is promptfoo's own verdicts on the shared cases", async () => {
    const module = (await import(pathToFileURL(join(INSTALL, 'dist', 'src', 'index.js')).href)) as {
      default: Parameters<typeof promptfooVerdicts>[0];
    };
    expect(await promptfooVerdicts(module.default)).toEqual(recorded);
  });

  it("compare-verdicts.json is promptfoo's own verdicts on the select-best and max-score cases", async () => {
    const module = (await import(pathToFileURL(join(INSTALL, 'dist', 'src', 'index.js')).href)) as {
      default: Parameters<typeof promptfooCompareVerdicts>[0];
    };
    expect(await promptfooCompareVerdicts(module.default)).toEqual(compared);
  });
});
