/**
 * A LUN above 255 on a fixture root: the single-session capture with its LUN 2 renumbered as the
 * kernel numbers a flat-space LUN 300 (H:0:0:16684, udev's lun-0x412c000000000000 link).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { makePDName } from '../../src/engine/kubelet/paths.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import {
  linkHost,
  loadCapture,
  materializeSysfs,
  mkHostDir,
  tempRoot,
  writeHostFile,
} from '../helpers/materialize-sysfs.js';
import { BASE_MOUNTINFO, IQN1, iscsiJson, KROOT, P1 } from './fixture-root.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

const LINK = `/dev/disk/by-path/ip-127.0.0.1:3260-iscsi-${IQN1}-lun-0x412c000000000000`;

function lun300Root(): string {
  const cap = loadCapture('single-sysfs.json');
  const entries: typeof cap.entries = {};
  const re = (s: string) => s.replaceAll('0:0:0:2', '0:0:0:16684');
  for (const [k, e] of Object.entries(cap.entries)) {
    entries[re(k)] = e.t === 'l' ? { ...e, to: re(e.to) } : e;
  }
  const root = materializeSysfs({ ...cap, entries }, tempRoot());
  roots.push(root);
  linkHost(root, LINK, '../../sdb');
  return root;
}

describe('LUN 300 (kernel 16684) on a fixture root', () => {
  it('reads the target LUN, the kernel number and the by-path link; the -lun-300 kubelet dir matches', () => {
    const root = lun300Root();
    const gp = makePDName(KROOT, 'default', P1, IQN1, 300);
    mkHostDir(root, gp);
    writeHostFile(
      root,
      path.join(gp, 'iscsi.json'),
      `${JSON.stringify(iscsiJson('pv300', [P1], IQN1, 300))}\n`,
    );
    writeHostFile(
      root,
      '/proc/1/mountinfo',
      `${[...BASE_MOUNTINFO, `40 22 8:16 / ${gp} rw,relatime shared:30 - ext4 /dev/sdb rw`].join('\n')}\n`,
    );
    const host = new FsHost({ root, runner: { mode: 'direct' }, hostname: 'node-a' });
    const s = takeSnapshot(host, { kubeletRoot: KROOT }).sessions[0]!;
    const d = s.devices.find((x) => x.name === 'sdb')!;
    expect(d).toMatchObject({ hctl: '0:0:0:16684', lun: 300, kernelLun: 16684, byPath: [LINK] });
    expect(d.key).toBe(`${IQN1}|${P1}|default|300`);
    expect(s.devices.find((x) => x.name === 'sda')!.kernelLun).toBeUndefined();
    expect(d.mountpoints).toEqual([gp]);
    expect(s.kubeletVolumes).toContain(gp);
    expect(s.verdict).toBe('in-use');
  });
});
