// The CLIs' options: --help prints the usage; an unknown option is a one-line message with the usage, exit code 2,
// and no stack trace.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';

const run = (script: string, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', fromRoot(script), ...args], { cwd: fromRoot('.'), encoding: 'utf8', timeout: 60_000 });

describe('command-line options', () => {
  it.each([
    ['src/text/rag/cli.ts', 'npm run index'],
    ['src/movies/cli.ts', 'npm run collect'],
    ['src/text/pull-cli.ts', 'npm run models:pull'],
    ['scripts/migrate.ts', 'npm run migrate'],
  ])('%s: --help prints the usage, an unknown option is refused with it (exit 2, no stack trace)', (script, usage) => {
    const help = run(script, '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain(`usage: ${usage}`);
    const bad = run(script, '--no-such-option');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^Unknown option '--no-such-option'\nusage: /);
    expect(bad.stderr).not.toMatch(/\bat .*\.(ts|js):\d+/);
  });

  it('npm run collect -- --help says what each of its options does', () => {
    const help = run('src/movies/cli.ts', '--help').stdout;
    const options = ['start-year', 'end-year', 'refresh-only', 'refresh-limit', 'include-frozen', 'dry-run', 'unfreeze', 'max-pages', 'min-vote-count'];
    for (const option of options) expect(help).toMatch(new RegExp(`^  --${option}\\b.* {2,}\\S`, 'm'));
  });
});
