// lint.mjs - runs the page's `npm test` (eslint + prettier --check) in web/.
// Exits 77 (skipped) when web/node_modules lacks eslint or prettier
// (scripts/install-deps.sh installs them).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const bin = (n) => path.join(web, 'node_modules', n, 'bin');
for (const [name, file] of [
  ['eslint', path.join(bin('eslint'), 'eslint.js')],
  ['prettier', path.join(web, 'node_modules/prettier/bin/prettier.cjs')],
]) {
  if (!fs.existsSync(file)) {
    console.log(`SKIP: ${name} is not installed in ${web}/node_modules (run npm ci there)`);
    process.exit(77);
  }
}
const run = (args) => spawnSync(process.execPath, args, { cwd: web, stdio: 'inherit' }).status;
const a = run([path.join(bin('eslint'), 'eslint.js'), '.']);
const b = run([path.join(web, 'node_modules/prettier/bin/prettier.cjs'), '--check', '.']);
console.log(a === 0 && b === 0 ? '1 passed, 0 failed' : '0 passed, 1 failed');
process.exit(a === 0 && b === 0 ? 0 : 1);
