import type {
  EntryInfo,
  EntryKind,
  Host,
  RunOptions,
  RunResult,
  TcpConnectResult,
} from '../../src/engine/host/host.js';

/** The Host read calls a snapshot makes; the floor replays exactly these. */
export type ReadOp = 'readText' | 'readTextOrError' | 'readDir' | 'readLink' | 'lstat' | 'stat';

export interface RecordedRead {
  op: ReadOp;
  /** Host path, as the engine passed it. */
  path: string;
}

/**
 * A Host decorator that records every read call (op + host path) and counts every call, then
 * delegates to the real Host (FsHost) unchanged. Used once per fixture size to learn which files a
 * snapshot reads; timed runs use the bare FsHost so the recording costs nothing there.
 * Host calls are the syscall proxy we report: each maps to 1 (lstat/stat/readlink) to ~4
 * (open+fstat+read+close for readFileSync; open+getdents+close for readdirSync) syscalls.
 */
export class RecordingHost implements Host {
  readonly reads: RecordedRead[] = [];
  readonly counts: Record<string, number> = {};
  recording = true;

  constructor(private readonly inner: Host) {}

  get kind() {
    return this.inner.kind;
  }

  get root() {
    return this.inner.root;
  }

  private note(op: string, path?: string): void {
    if (!this.recording) return;
    this.counts[op] = (this.counts[op] ?? 0) + 1;
    if (path !== undefined && isReadOp(op)) this.reads.push({ op, path });
  }

  /** Clears the record (e.g. after a warm-up call). */
  reset(): void {
    this.reads.length = 0;
    for (const k of Object.keys(this.counts)) delete this.counts[k];
  }

  /** Total Host calls recorded. */
  total(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }

  readText(path: string): string | undefined {
    this.note('readText', path);
    return this.inner.readText(path);
  }

  readTextOrError(path: string): { value: string } | { error: string } {
    this.note('readTextOrError', path);
    return this.inner.readTextOrError(path);
  }

  readDir(path: string): string[] {
    this.note('readDir', path);
    return this.inner.readDir(path);
  }

  readLink(path: string): string | undefined {
    this.note('readLink', path);
    return this.inner.readLink(path);
  }

  lstat(path: string): EntryKind | undefined {
    this.note('lstat', path);
    return this.inner.lstat(path);
  }

  stat(path: string): EntryKind | undefined {
    this.note('stat', path);
    return this.inner.stat(path);
  }

  writeText(path: string, data: string, mode?: number): void {
    this.note('writeText');
    this.inner.writeText(path, data, mode);
  }

  appendLine(path: string, line: string, mode?: number): boolean {
    this.note('appendLine');
    return this.inner.appendLine(path, line, mode);
  }

  replaceFile(path: string, data: string): void {
    this.note('replaceFile');
    this.inner.replaceFile(path, data);
  }

  entryInfo(path: string): EntryInfo | undefined {
    this.note('entryInfo');
    return this.inner.entryInfo(path);
  }

  createExclusive(path: string, data: string): boolean {
    this.note('createExclusive');
    return this.inner.createExclusive(path, data);
  }

  mkdir(path: string, mode?: number): void {
    this.note('mkdir');
    this.inner.mkdir(path, mode);
  }

  rmdir(path: string): void {
    this.note('rmdir');
    this.inner.rmdir(path);
  }

  unlink(path: string): void {
    this.note('unlink');
    this.inner.unlink(path);
  }

  run(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    this.note('run');
    return this.inner.run(argv, options);
  }

  connectTcp(address: string, port: number, timeoutMs: number): Promise<TcpConnectResult> {
    this.note('connectTcp');
    return this.inner.connectTcp(address, port, timeoutMs);
  }

  hostname(): string {
    this.note('hostname');
    return this.inner.hostname();
  }

  now(): number {
    return this.inner.now();
  }
}

const READ_OPS: ReadonlySet<string> = new Set<ReadOp>([
  'readText',
  'readTextOrError',
  'readDir',
  'readLink',
  'lstat',
  'stat',
]);

function isReadOp(op: string): op is ReadOp {
  return READ_OPS.has(op);
}
