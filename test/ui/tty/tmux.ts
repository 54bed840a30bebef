/**
 * Drives the built CLI in a real terminal: a tmux session on a private socket (so no other tmux
 * server is touched), keys through send-keys, the screen through capture-pane. Waits poll the
 * screen for a condition with a deadline; nothing sleeps blindly.
 */
import { execFileSync, spawnSync } from 'node:child_process';

export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V']).status === 0;
}

export class TmuxTerminal {
  readonly socket: string;
  readonly name: string;

  constructor(
    readonly columns: number,
    readonly rows: number,
    tag = 'main',
  ) {
    this.socket = `ic-test-${process.pid}-${tag}`;
    this.name = `ic-${process.pid}-${tag}`;
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** Starts `command` (a shell line); when it ends the pane prints `EXITED <code>` and stays open. */
  start(command: string, cwd: string, env: Record<string, string> = {}): void {
    const exports = Object.entries(env)
      .map(([k, v]) => `export ${k}='${v}';`)
      .join(' ');
    this.tmux(
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(this.columns),
      '-y',
      String(this.rows),
      `cd '${cwd}' && ${exports} ${command}; echo "EXITED $?"; exec cat`,
    );
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.name);
  }

  /** The screen with its escape sequences (colours), as the terminal holds it. */
  screenWithEscapes(): string {
    return this.tmux('capture-pane', '-p', '-e', '-t', this.name);
  }

  /** Whether the program has the terminal in the alternate screen. */
  alternateOn(): boolean {
    return this.tmux('display-message', '-p', '-t', this.name, '#{alternate_on}').trim() === '1';
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.name, ...keys);
  }

  text(literal: string): void {
    this.tmux('send-keys', '-t', this.name, '-l', literal);
  }

  async waitFor(pred: string | RegExp | ((s: string) => boolean), timeoutMs = 30_000): Promise<string> {
    const test =
      typeof pred === 'string'
        ? (s: string) => s.includes(pred)
        : pred instanceof RegExp
          ? (s: string) => pred.test(s)
          : pred;
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      last = this.screen();
      if (test(last)) return last;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(pred)}; screen:\n${last}`);
      // Poll interval, not a sleep-and-hope: the condition decides when we go on.
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  stop(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-session', '-t', this.name]);
  }
}
