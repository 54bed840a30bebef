/**
 * The attach step that stores CHAP credentials: written into the record file under iscsiadm's DB
 * lock (src/engine/iscsiadm/record-secrets.ts), then read back through `iscsiadm -o show` with the
 * passwords masked. No value is ever on a command line, in the journal or in an error.
 */
import { ExternalCommandError, stepFailedError, UserError } from '../errors.js';
import { discoverydbShowArgv, nodeArgv, recordOpArgv } from '../iscsiadm/argv.js';
import {
  discoveryRecordFiles,
  nodeRecordFiles,
  recordValueProblem,
  restoreRecords,
  unconfirmedFields,
  withIdbmLock,
  writeRecordFields,
} from '../iscsiadm/record-secrets.js';
import { SECRET_FILE_MODE } from './guard/secret-file.js';
import { guardRefusal, mustRun, type Runtime } from './runtime.js';
import type { DynamicOf } from './types.js';

type RecordSecrets = DynamicOf<'record-secrets'>;

/**
 * After a failed attach: every record file this run's CHAP steps rewrote gets its previous bytes
 * back under iscsiadm's DB lock (replaced whole, 0600; only the CHAP fields when iscsiadm rewrote
 * the file since), so a record that existed before the attach is left as it was, without the
 * credentials of an attach that did not happen. Records the attach created are deleted by the
 * rollback anyway. Never throws.
 */
export async function restoreChapRecords(rt: Runtime): Promise<{ restored: string[]; left: string[] }> {
  const all = rt.recordBackups ?? [];
  rt.recordBackups = [];
  if (all.length === 0) return { restored: [], left: [] };
  // Each restore is a whole-file secret write: it passes the executor's guard like any step's.
  const refused: string[] = [];
  const backups = all.filter((b) => {
    const why = guardRefusal(rt, { kind: 'write-file', path: b.path, mode: SECRET_FILE_MODE, secret: true });
    if (why) refused.push(`${b.path} (${why})`);
    return !why;
  });
  let left: string[] = [];
  try {
    if (backups.length > 0)
      left = await withIdbmLock(rt.host, rt.sleep, () => restoreRecords(rt.host, backups));
  } catch (e) {
    left = backups.map((b) => `${b.path} (${(e as Error).message})`);
  }
  left.push(...refused);
  const restored = backups
    .filter((b) => rt.host.lstat(b.path) === 'file' && !left.some((l) => l.startsWith(`${b.path} `)))
    .map((b) => `CHAP fields of ${b.path} as they were before this attach`);
  return { restored, left: left.map((l) => `CHAP fields of ${l}`) };
}

/** The `-o show` argv that reads the record back (what the console compares, never prints). */
function showArgv(d: RecordSecrets): string[] {
  return d.scope === 'node'
    ? recordOpArgv(nodeArgv(d.portal, d.iqn, d.iface), 'show')
    : discoverydbShowArgv(d.portal);
}

/** Runs one record-secrets step (portal already resolved). Returns the step detail. */
export async function writeChapRecord(rt: Runtime, d: RecordSecrets): Promise<string> {
  const fields: Record<string, string> = {};
  for (const k of d.keys) {
    const v = rt.secrets[k];
    if (v === undefined || v === '')
      throw new UserError(`secret ${k} was not provided`, 'pass the Secret manifest with --secret FILE');
    const why = recordValueProblem(v);
    if (why)
      throw new UserError(
        `secret ${k} cannot be stored in an open-iscsi record: ${why}`,
        'CHAP values are 1–255 bytes without line breaks, control characters or blanks at either end',
      );
    fields[k] = v;
  }
  const files =
    d.scope === 'node'
      ? nodeRecordFiles(rt.host, d.iqn, d.portal, d.iface)
      : discoveryRecordFiles(rt.host, d.portal);
  if (files.length === 0) {
    throw stepFailedError(
      `no ${d.scope} record for ${d.scope === 'node' ? `${d.iqn} @ ${d.portal} (${d.iface})` : d.portal} to hold the CHAP credentials`,
      `check \`${showArgv(d).join(' ')}\`; the record is created by the step before`,
    );
  }
  // Each record file is replaced whole with the secrets in it: the executor's guard sees every one.
  for (const f of files) rt.guard({ kind: 'write-file', path: f, mode: SECRET_FILE_MODE, secret: true });
  // The apply's clock (ApplyOptions.sleep), so a test never waits on a real timer here either.
  const backups = await writeRecordFields(rt.host, rt.sleep, files, fields);
  rt.recordBackups = [...(rt.recordBackups ?? []), ...backups];
  const masked = Object.keys(fields)
    .map((k) => `${k} = ********`)
    .join('\n');
  for (const f of files) rt.commands.push({ write: { path: f, data: masked } });
  const show = await mustRun(rt, showArgv(d));
  const bad = unconfirmedFields(show.stdout, fields);
  if (bad.length > 0) {
    throw new ExternalCommandError(
      `iscsiadm does not read ${bad.join(', ')} back as written to ${files.join(', ')}`,
      showArgv(d),
      0,
      undefined,
      '',
      false,
      'the record format of this iscsiadm differs from open-iscsi 2.x; set the CHAP fields with iscsiadm -o update by hand',
    );
  }
  return `${Object.keys(fields).join(', ')} written to ${files.join(', ')} under the iscsiadm DB lock; read back by iscsiadm (passwords masked)`;
}
