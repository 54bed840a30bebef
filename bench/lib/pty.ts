import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Strips CSI/OSC escape sequences so screen text can be matched. */
export function stripAnsi(text: string): string {
  return text.replace(
    /\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]/g,
    '',
  );
}

/**
 * A program in a real pseudo-terminal, via util-linux `script` (node-pty is not a dependency):
 * output arrives as the program writes it (-f), so "time until text X appears" is measured on the
 * stream, not by polling a screen. The pty gets a fixed size first (stty), then the shell `exec`s
 * the program, so the pty's child *is* the program (its pid gives its /proc status).
 */
export class Pty {
  readonly child: ChildProcess;
  /** performance.now() when the process was spawned. */
  readonly spawnedAt: number;
  private raw = '';
  private readonly chunks: { at: number; length: number }[] = [];
  private waiters: (() => void)[] = [];
  exitCode: number | null | undefined;

  constructor(
    argv: readonly string[],
    options: { cols: number; rows: number; cwd: string; env?: NodeJS.ProcessEnv },
  ) {
    const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    const shell = `stty rows ${options.rows} cols ${options.cols}; exec ${quoted}`;
    this.spawnedAt = performance.now();
    this.child = spawn('script', ['-qfec', shell, '/dev/null'], {
      cwd: options.cwd,
      env: { ...process.env, TERM: 'xterm-256color', COLORTERM: 'truecolor', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (b: Buffer) => {
      this.raw += b.toString('utf8');
      this.chunks.push({ at: performance.now(), length: this.raw.length });
      this.wake();
    });
    this.child.stderr!.on('data', (b: Buffer) => {
      this.raw += b.toString('utf8');
      this.wake();
    });
    this.child.on('exit', (code) => {
      this.exitCode = code;
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Everything written so far, escape sequences stripped. */
  text(): string {
    return stripAnsi(this.raw);
  }

  /** Bytes of output so far. */
  get length(): number {
    return this.raw.length;
  }

  /**
   * Resolves with performance.now() of the output chunk that made `test` true (checked on the
   * stripped text from `fromLength` on), or undefined after `timeoutMs` or when the program exits.
   */
  async waitFor(
    test: (text: string) => boolean,
    timeoutMs: number,
    fromLength = 0,
  ): Promise<number | undefined> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (test(stripAnsi(this.raw.slice(fromLength)))) {
        return this.chunks.at(-1)?.at ?? performance.now();
      }
      if (this.exitCode !== undefined) return undefined;
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Resolves with the time of the next output chunk after now, or undefined after `timeoutMs`. */
  async nextOutput(timeoutMs: number): Promise<number | undefined> {
    const from = this.raw.length;
    return this.waitFor(() => this.raw.length > from, timeoutMs);
  }

  /** Resolves once no output arrived for `quietMs` (or after `maxMs`). */
  async quiet(quietMs: number, maxMs: number): Promise<void> {
    const end = performance.now() + maxMs;
    while (performance.now() < end) {
      const got = await this.nextOutput(quietMs);
      if (got === undefined) return;
    }
  }

  write(keys: string): void {
    this.child.stdin!.write(keys);
  }

  /** Pid of the program (the pty's child, thanks to exec), once it has started. */
  programPid(): number | undefined {
    const pid = this.child.pid;
    if (pid === undefined) return undefined;
    try {
      const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
      return kids[0] ? Number(kids[0]) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Ends the program (SIGTERM to `script`, then SIGKILL) and waits for it. */
  async close(): Promise<void> {
    if (this.exitCode !== undefined) return;
    const prog = this.programPid();
    if (prog) {
      try {
        process.kill(prog, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    const gone = await this.waitFor(() => false, 2_000).then(() => this.exitCode !== undefined);
    if (!gone) this.child.kill('SIGKILL');
  }
}

/** Peak and current RSS of a process in MB, from /proc/<pid>/status (VmHWM / VmRSS). */
export function memoryOf(pid: number): { peakMb: number; rssMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}
