/** The source tree as the architecture tests read it: every .ts/.tsx file under a folder of src/. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const SRC = join(import.meta.dirname, '../../src');

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|tsx)$/.test(name) ? [p] : [];
  });
}
