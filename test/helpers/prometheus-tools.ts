/**
 * Debian's Prometheus tools (`.ci/run` installs the `prometheus` and `prometheus-node-exporter`
 * packages). A test that needs one and finds it missing fails with that hint: nothing is skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

export const PROMTOOL = '/usr/bin/promtool';
export const PROMETHEUS = '/usr/bin/prometheus';
export const NODE_EXPORTER = '/usr/bin/prometheus-node-exporter';

/** The path, or an error saying how to get it. */
export function requireTool(path: string): string {
  if (!existsSync(path))
    throw new Error(
      `${path} is missing: .ci/run installs it (apt-get install prometheus prometheus-node-exporter)`,
    );
  return path;
}

/** `promtool check metrics` on a text: its exit code and what it said. */
export function promtoolCheckMetrics(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(requireTool(PROMTOOL), ['check', 'metrics'], (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      resolve({ code: typeof code === 'number' ? code : 1, output: `${stdout}${stderr}` });
    });
    child.stdin!.end(text);
  });
}

/** A free loopback TCP port (bound and released: the caller binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function pollFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (performance.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
