// Writes verdicts.json and compare-verdicts.json: promptfoo's verdicts on the shared cases. Run it
// with promptfoo installed apart (npm run test:promptfoo installs it):
// node test/promptfoo/record-verdicts.ts <promptfoo folder>
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promptfooCompareVerdicts, promptfooVerdicts } from './promptfoo-verdicts.ts';

const folder = process.argv[2] ?? join(import.meta.dirname, '.install');
const promptfoo = (
  await import(pathToFileURL(join(folder, 'node_modules', 'promptfoo', 'dist', 'src', 'index.js')).href)
).default;
const verdicts = await promptfooVerdicts(promptfoo);
writeFileSync(join(import.meta.dirname, 'verdicts.json'), `${JSON.stringify(verdicts, null, 2)}\n`);
const compared = await promptfooCompareVerdicts(promptfoo);
writeFileSync(join(import.meta.dirname, 'compare-verdicts.json'), `${JSON.stringify(compared, null, 2)}\n`);
console.log(`${Object.keys(verdicts).length} verdicts and ${Object.keys(compared).length} compared verdicts written`);
