import { resolve } from 'node:path';
import { BUNDLE_FILE_CAP, BUNDLE_TOTAL_CAP, buildBundle } from '../../engine/bundle/index.js';
import { writeNewAdminFile } from '../../engine/host/local-file.js';
import { isoTime } from '../../engine/text/time.js';
import type { Command } from '../command.js';

/** `iscsi-console-bundle-<host>-20261203T210455Z`: sorts by time, says which node. */
export function bundleName(hostname: string, nowMs: number): string {
  const stamp = isoTime(nowMs)
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const host = hostname.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'node';
  return `iscsi-console-bundle-${host}-${stamp}`;
}

const MiB = 1024 * 1024;

/** `iscsi-console bundle [--output FILE]`: the node's iSCSI state for a support case, secrets scrubbed. */
export const bundleCommand: Command = {
  name: 'bundle',
  summary:
    'Write a support bundle (.tar.gz): status, doctor, journal, records, iscsiadm/multipathd output, kernel log, metadata — CHAP scrubbed',
  usage: 'bundle [--output FILE]',
  options: [
    {
      name: 'output',
      type: 'string',
      valueName: 'FILE',
      description:
        'Write the archive to FILE (a new file: an existing one is not replaced). Default: iscsi-console-bundle-<node>-<UTC time>.tar.gz in the current directory',
    },
  ],
  examples: [
    'iscsi-console bundle',
    'iscsi-console bundle --output /tmp/case-4711.tar.gz',
    'iscsi-console bundle --root /host --exec nsenter   # from a debug pod',
  ],
  description:
    'Read-only. One .tar.gz with manifest.json (what is inside, what could not be read and why, the caps), ' +
    'status.json, doctor.json, the journal, the open-iscsi config and node DB, multipath.conf, kubelet and CSI ' +
    'metadata files, `iscsiadm -m node -P 1`, `-m iface`, `-m session -P 3`, `multipathd show config`, ' +
    '`show maps json`, the kernel log lines of iSCSI, SCSI and dm, and udev records of the iSCSI devices. ' +
    `Every CHAP username and secret is replaced by ********. Each member is cut at ${BUNDLE_FILE_CAP / MiB} MiB, the bundle at ${BUNDLE_TOTAL_CAP / MiB} MiB. ` +
    'The file is written mode 0600. Prints the path written.',
  async run(ctx, args) {
    const name = bundleName(ctx.host.hostname(), ctx.host.now());
    const given = args.options.output;
    const path = resolve(typeof given === 'string' ? given : `${name}.tar.gz`);
    const bundle = await buildBundle(ctx.host, {
      kubeletRoot: ctx.globals.kubeletRoot,
      exec: ctx.globals.exec,
      stateDir: ctx.globals.stateDir,
      top: name,
    });
    writeNewAdminFile(path, bundle.archive, 0o600, 'bundle');
    const m = bundle.manifest;
    if (ctx.globals.json) {
      ctx.out.stdout(
        `${JSON.stringify({ path, bytes: bundle.archive.length, entries: m.entries.length, missing: m.missing })}\n`,
      );
    } else {
      ctx.out.stdout(
        `${path}: ${m.entries.length} files, ${bundle.archive.length} bytes; ${m.missing.length} not read (see manifest.json)\n`,
      );
    }
    return 0;
  },
};
