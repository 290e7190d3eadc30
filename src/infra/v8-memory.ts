// V8 settings for a long-running service whose live heap is small and steady. By default V8 lets a busy heap grow to
// several times what is alive before it collects (a 90 MB live heap reached 250 MB under load), and compiles
// WebAssembly a second time with its optimising compiler (the embedded PGlite: about 30 MB of code and compiler memory
// for a database that answers a handful of small queries). Both are process-wide, so worker threads get them too.
import { setFlagsFromString } from 'node:v8';

export const MEMORY_FLAGS = [
  // Collect when the heap has grown 20% past what survived the last full collection.
  '--heap-growing-percent=20',
  // WebAssembly stays on the baseline compiler.
  '--liftoff-only',
];

/** Call before anything large is loaded: the WebAssembly flag applies to modules compiled afterwards. */
export function applyMemoryFlags(flags: readonly string[] = MEMORY_FLAGS): void {
  for (const flag of flags) setFlagsFromString(flag);
}
