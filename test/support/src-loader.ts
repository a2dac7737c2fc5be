// Lets a script under test/ (run by plain `node`, as `npm run demo` is) import a module of src/:
// src/ imports its siblings as `./x.js`, the name tsc and ncc give the built file, so a `.js`
// that does not exist beside a `.ts` that does resolves to the `.ts`. Run with
// --experimental-transform-types, since src/ uses TypeScript that stripping alone cannot run.
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.startsWith('file:')) {
      const ts = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
      if (!existsSync(new URL(specifier, context.parentURL)) && existsSync(fileURLToPath(ts))) {
        return nextResolve(ts.href, context);
      }
    }
    return nextResolve(specifier, context);
  },
});
