import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, ensureDataDirs, loadConfig } from '../../src/infra/config.js';
import { PROJECT_ROOT, fromRoot } from '../../src/infra/paths.js';
import { tempDir } from '../helpers/app.js';

function configDir(files: Record<string, string>): string {
  const dir = tempDir('cfg-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const load = (env: Record<string, string>, files: Record<string, string> = {}, dotenvFile: string | null = null) =>
  loadConfig({ env, configDir: configDir(files), dotenvFile });

describe('config', () => {
  it('has the documented defaults', () => {
    const c = load({});
    expect(c).toMatchObject({ PORT: 5000, APP_ENV: 'production', APP_DEBUG: false, LOG_LEVEL: 'info', DATA_DIR: './data' });
    expect(c.MODEL_PATH).toBe('models/survival/model.onnx');
  });

  it('lets the environment win over default.yaml and <APP_ENV>.yaml over default.yaml', () => {
    const files = { 'default.yaml': 'port: 6000\nlog_level: warn\n', 'development.yaml': 'log_level: debug\n' };
    expect(load({}, files).PORT).toBe(6000);
    expect(load({ PORT: '7000' }, files).PORT).toBe(7000);
    expect(load({ APP_ENV: 'development' }, files).LOG_LEVEL).toBe('debug');
    expect(load({ APP_ENV: 'development', LOG_LEVEL: 'ERROR' }, files).LOG_LEVEL).toBe('error');
  });

  it('reads log levels case-insensitively, with Python spellings', () => {
    expect(load({ LOG_LEVEL: 'INFO' }).LOG_LEVEL).toBe('info');
    expect(load({ LOG_LEVEL: 'Warning' }).LOG_LEVEL).toBe('warn');
    expect(() => load({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });

  it('parses the boolean spellings of .env files', () => {
    expect(load({ APP_ENV: 'development', APP_DEBUG: 'True' }).APP_DEBUG).toBe(true);
    expect(load({ APP_DEBUG: 'False' }).APP_DEBUG).toBe(false);
    expect(() => load({ APP_DEBUG: 'maybe' })).toThrow(/APP_DEBUG/);
  });

  it('names the variable when a value is invalid', () => {
    expect(() => load({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => load({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => load({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => load({ APP_ENV: 'staging' })).toThrow(/APP_ENV/);
  });

  it('takes only a collection name Chroma accepts', () => {
    expect(load({ RAG_COLLECTION: 'my-docs.v2' }).RAG_COLLECTION).toBe('my-docs.v2');
    for (const bad of ['tm', 'docs-', '-docs', 'my docs', 'a'.repeat(64)]) expect(() => load({ RAG_COLLECTION: bad })).toThrow(/RAG_COLLECTION/);
  });

  it('refuses debug mode in production', () => {
    expect(() => load({ APP_ENV: 'production', APP_DEBUG: 'true' })).toThrow(/APP_DEBUG: debug mode must be off/);
    expect(load({ APP_ENV: 'development', APP_DEBUG: 'true' }).APP_DEBUG).toBe(true);
  });

  it('rejects unknown keys in YAML files, naming the key', () => {
    expect(() => load({}, { 'default.yaml': 'prot: 5000\n' })).toThrow(/unknown setting "prot"/);
  });

  it('reads .env when present, with the real environment winning', () => {
    const dir = tempDir('dotenv-');
    const file = join(dir, '.env');
    writeFileSync(file, 'PORT=5100\nHOST=127.0.0.1\n');
    const c = load({ HOST: '::1' }, {}, file);
    expect(c.PORT).toBe(5100);
    expect(c.HOST).toBe('::1');
  });

  it('creates the data directory and its images folder when missing', () => {
    const base = tempDir('data-');
    const dataDir = join(base, 'nested', 'data');
    const dirs = ensureDataDirs(load({ DATA_DIR: dataDir }));
    expect(existsSync(dirs.imagesDir)).toBe(true);
  });

  it('names DATA_DIR when it cannot be created', () => {
    const base = tempDir('data-');
    writeFileSync(join(base, 'file'), 'x');
    mkdirSync(join(base, 'ok'));
    expect(() => ensureDataDirs(load({ DATA_DIR: join(base, 'file', 'sub') }))).toThrow(/DATA_DIR/);
  });
});

describe('.env.example', () => {
  it('documents every configuration variable', async () => {
    const { readFileSync } = await import('node:fs');
    const { ConfigSchema } = await import('../../src/infra/config.js');
    const { fromRoot } = await import('../../src/infra/paths.js');
    const text = readFileSync(fromRoot('.env.example'), 'utf8');
    const missing = Object.keys(ConfigSchema.shape).filter((k) => !new RegExp(`^#? ?${k}=`, 'm').test(text));
    expect(missing).toEqual([]);
  });
});

describe('README configuration table', () => {
  it('is the one generated from the configuration schema (npm run docs:config rewrites it)', async () => {
    const { readFileSync } = await import('node:fs');
    const { fromRoot } = await import('../../src/infra/paths.js');
    const { withConfigTable } = await import('../../scripts/lib/config-table.js');
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    expect(readme).toBe(withConfigTable(readme));
    for (const name of ['DOCS_DIR', 'CHROMA_URL', 'EMBEDDING_MODEL', 'RERANK_MODEL', 'RAG_MIN_SEMANTIC']) expect(readme).toContain(`| \`${name}\` |`);
  });
});

describe('paths from the configuration', () => {
  it('reads ~/ as the home folder, a relative path from the project folder, and keeps an absolute one', () => {
    expect(fromRoot('~/notes')).toBe(join(homedir(), 'notes'));
    expect(fromRoot('~')).toBe(homedir());
    expect(fromRoot('data')).toBe(join(PROJECT_ROOT, 'data'));
    expect(fromRoot('/srv/docs')).toBe('/srv/docs');
    // Only a leading "~/" is the home folder: "~other" is a folder of that name in the project.
    expect(fromRoot('~other/x')).toBe(join(PROJECT_ROOT, '~other', 'x'));
  });
});
