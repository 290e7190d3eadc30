// A local server in the Hugging Face Hub's URL layout (/{org}/{name}/resolve/{revision}/{file}) with the headers
// transformers.js reads (content-length, content-range for its one-byte Range probes, content-type, etag), LFS-style
// redirects for .onnx files, the Hub's 401 for unknown repositories and 404 for missing files, and slow or failing
// files on demand. It can be stopped and started again on the same port, to play an unreachable Hub.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { join, relative, sep } from 'node:path';
import { fromRoot } from '../../src/infra/paths.js';

const REPO = /^\/([\w.-]+\/[\w.-]+)\/resolve\/([^/]+)\/(.+)$/;
const CDN = /^\/cdn\/([\w.-]+\/[\w.-]+)\/(.+)$/;

export class FakeHub {
  /** Repository id -> file path in the repository -> file on disk. */
  private repos = new Map<string, Map<string, string>>();
  /** "repo/file" -> milliseconds before the body is sent. */
  readonly slow = new Map<string, number>();
  /** "repo/file" -> HTTP status answered instead of the file. */
  readonly failing = new Map<string, number>();
  /** Paths requested (file downloads and range probes alike), in order. */
  readonly requests: { path: string; range: string | null }[] = [];
  url = '';
  private port = 0;
  private server: Server | null = null;

  /** Publishes a model directory under a Hub-style id ("org/name"): every file in it, sub-folders included. */
  publish(id: string, dir: string): this {
    const files = new Map<string, string>();
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const path = join(d, e.name);
        if (e.isDirectory()) walk(path);
        else files.set(relative(dir, path).split(sep).join('/'), path);
      }
    };
    walk(fromRoot(dir));
    this.repos.set(id, files);
    return this;
  }

  /** Bytes of a published repository, as a download would fetch them. */
  size(id: string): number {
    return [...(this.repos.get(id)?.values() ?? [])].reduce((n, f) => n + statSync(f).size, 0);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = decodeURIComponent((req.url ?? '').split('?')[0]!);
      const range = req.headers.range ?? null;
      this.requests.push({ path, range });
      const answer = (status: number, headers: Record<string, string>, body = '') => {
        res.writeHead(status, headers);
        res.end(body);
      };
      const repoFile = REPO.exec(path);
      const cdnFile = CDN.exec(path);
      if (!repoFile && !cdnFile) return answer(404, { 'content-type': 'text/plain' }, 'Not Found');
      const [repo, file] = repoFile ? [repoFile[1]!, repoFile[3]!] : [cdnFile![1]!, cdnFile![2]!];
      const files = this.repos.get(repo);
      // The Hub does not tell a missing repository from a private one.
      if (!files) return answer(401, { 'x-error-code': 'RepositoryNotFound', 'content-type': 'text/plain' }, 'Repository not found');
      if (repoFile && repoFile[2] !== 'main') return answer(404, { 'x-error-code': 'RevisionNotFound', 'content-type': 'text/plain' }, 'Invalid rev id');
      const onDisk = files.get(file);
      if (!onDisk) return answer(404, { 'x-error-code': 'EntryNotFound', 'content-type': 'text/plain' }, 'Entry not found');
      const failure = this.failing.get(`${repo}/${file}`);
      if (failure) return answer(failure, { 'content-type': 'text/plain' }, 'Internal Error');
      const body = readFileSync(onDisk);
      const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 40)}"`;
      // Large files live in LFS storage: the Hub redirects to a CDN URL.
      if (repoFile && file.endsWith('.onnx')) {
        return answer(302, { location: `/cdn/${repo}/${file}`, 'x-repo-commit': 'fakecommit', 'x-linked-etag': etag, 'x-linked-size': String(body.length) });
      }
      const headers = {
        'content-type': file.endsWith('.json') ? 'application/json' : 'application/octet-stream',
        etag,
        'accept-ranges': 'bytes',
        'x-repo-commit': 'fakecommit',
      };
      const probe = /^bytes=(\d+)-(\d+)$/.exec(range ?? '');
      if (probe) {
        const [from, to] = [Number(probe[1]), Math.min(Number(probe[2]), body.length - 1)];
        const part = body.subarray(from, to + 1);
        res.writeHead(206, { ...headers, 'content-range': `bytes ${from}-${to}/${body.length}`, 'content-length': String(part.length) });
        return res.end(part);
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(200, { ...headers, 'content-length': String(body.length) });
        res.end(body);
      };
      const delay = this.slow.get(`${repo}/${file}`);
      if (delay) setTimeout(send, delay);
      else send();
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
    this.url = `http://127.0.0.1:${this.port}`;
  }

  /** Stops answering (connections are refused) until start() is called again, on the same port. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  }

  /** Downloads (not range probes) of a repository's files since the last reset. */
  downloads(id: string): string[] {
    return this.requests.filter((r) => !r.range && r.path.startsWith(`/${id}/resolve/`)).map((r) => r.path.split('/resolve/main/')[1]!);
  }
}
