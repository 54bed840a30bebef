import { EventEmitter } from 'node:events';

/**
 * An in-memory terminal keyboard Ink can read from: raw-mode capable, `readable`-driven like a TTY.
 * Used where the console renders without a real terminal (the render benchmark, component tests).
 */
export class KeyboardStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  /** Types `data` as a terminal would send it (one chunk). */
  write(data: string): void {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  }
  read = (): string | null => {
    const d = this.data;
    this.data = null;
    return d;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}
