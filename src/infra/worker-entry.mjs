// The entry of the service's worker threads (src/infra/worker-pool.ts): runs an exported function of a task module.
// Plain JavaScript, so that it loads as it is: task modules are compiled .js in production, and .ts in development and
// tests, loaded there through tsx's API (a worker thread does not inherit the parent's loader).
const modules = new Map();

async function load(file) {
  if (file.endsWith('.ts')) {
    const { tsImport } = await import('tsx/esm/api');
    return tsImport(file, import.meta.url);
  }
  return import(file);
}

/** Piscina calls this with one task: the module, the exported function's name, and its argument. */
export default async function run({ file, name, args }) {
  let mod = modules.get(file);
  if (!mod) {
    mod = load(file);
    modules.set(file, mod);
  }
  const fn = (await mod)[name];
  if (typeof fn !== 'function') throw new Error(`${file} has no task "${name}"`);
  return fn(args);
}
