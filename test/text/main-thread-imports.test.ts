// The event loop's thread never loads the part-of-speech tagger (compromise) or the canvas library: the tagger costs
// about 13 MB of resident memory, and the reader, the question's tagging and the plots run in the worker pool, which
// loads them through its own entry. This walks the static imports (not `import type`, not `import()`) of the modules
// the event loop's thread loads, the service's entry and the answer pipeline it loads on first use, and fails with the
// chain of files that would pull one of them in. A plural what/which question's list (span-list.ts) once did.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The chain of files from `entry` to the first static import of `pkg`, or null when none reaches it. */
function chainTo(entry: string, pkg: string): string[] | null {
  const parent = new Map<string, string | null>();
  const stack: [string, string | null][] = [[resolve(ROOT, entry), null]];
  while (stack.length) {
    const [file, from] = stack.pop()!;
    if (parent.has(file)) continue;
    parent.set(file, from);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (spec === pkg || spec!.startsWith(`${pkg}/`)) {
        const chain = [file];
        for (let at = parent.get(file); at; at = parent.get(at)) chain.push(at);
        return chain.map((f) => relative(ROOT, f));
      }
      if (!spec!.startsWith('.')) continue;
      const ts = resolve(dirname(file), spec!).replace(/\.js$/, '.ts');
      const mjs = ts.replace(/\.ts$/, '.mjs');
      if (existsSync(ts)) stack.push([ts, file]);
      else if (existsSync(mjs)) stack.push([mjs, file]);
    }
  }
  return null;
}

describe("the event loop's thread", () => {
  const entries = ['src/server.ts', 'src/text/rag/ask/pipeline.ts'];

  it.each(entries)('%s imports neither the tagger nor the canvas library', (entry) => {
    expect(chainTo(entry, 'compromise')).toBeNull();
    expect(chainTo(entry, '@napi-rs/canvas')).toBeNull();
  });

  it('the walk finds such an import where there is one (the reader, which runs in the worker)', () => {
    const chain = chainTo('src/text/rag/ask/reader-task.ts', 'compromise');
    expect(chain?.at(-1)).toBe('src/text/rag/ask/reader-task.ts');
  });
});
