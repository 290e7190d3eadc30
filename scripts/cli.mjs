// Runs one of the project's command-line tools (npm run collect, index, migrate, models:pull): from its TypeScript
// source through tsx where tsx is installed (a development checkout), otherwise from the JavaScript that
// `npm run build` compiled into dist/ (the production image, whose `npm ci --omit=dev` leaves tsx out).
// usage: node scripts/cli.mjs <path of the .ts source> [arguments...]
/* global process, console */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [source, ...args] = process.argv.slice(2);
if (!source?.endsWith('.ts')) {
  console.error('usage: node scripts/cli.mjs <path of the .ts source> [arguments...]');
  process.exit(2);
}

function hasTsx() {
  try {
    import.meta.resolve('tsx/esm/api');
    return true;
  } catch {
    return false;
  }
}

const sourcePath = join(root, source);
const compiledPath = join(root, 'dist', source.replace(/\.ts$/, '.js'));
const fromSource = existsSync(sourcePath) && hasTsx();
if (!fromSource && !existsSync(compiledPath)) {
  console.error(`${source.replace(/\.ts$/, '.js')} is not compiled and tsx is not installed: run npm run build first (or npm ci for tsx).`);
  process.exit(1);
}
const target = fromSource ? sourcePath : compiledPath;
// The tool reads its options from process.argv, as if started directly.
process.argv = [process.argv[0], target, ...args];
if (fromSource) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(pathToFileURL(target).href);
