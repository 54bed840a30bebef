/**
 * `attach --manifest/--secret` through the CLI's main: the manifest reader is loaded lazily
 * (attach.ts manifestModule, kept out of the console's start-up), and the action command awaits it
 * before reading the files. This file loads nothing else first, so the reader starts unloaded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { writeChapPv } from '../actions/helpers.js';
import { captureOutput } from '../helpers/capture-output.js';

describe('attach --manifest from the CLI', () => {
  it('plans from a PV and its Secret without the secret in the output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ic-attach-manifest-'));
    try {
      const iqn = 'iqn.2024-01.lab.example:lazy';
      const password = 'lazy-secret-0123456789';
      const f = writeChapPv(dir, { portal: '10.9.8.7:3260', iqn, lun: 3, user: 'lazy-user', password });
      const o = captureOutput();
      const code = await main(
        ['attach', '--manifest', f.pv, '--secret', f.secret, '--demo', 'incident', '--dry-run', '--json'],
        o,
      );
      expect(o.err).not.toContain('not loaded');
      expect(code).toBe(0);
      expect(o.out).toContain(iqn);
      expect(o.out).toContain('10.9.8.7:3260');
      expect(o.out + o.err).not.toContain(password);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
