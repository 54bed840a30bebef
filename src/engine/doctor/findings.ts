/**
 * A check's line says what was found, not what was hoped for: "✗ iscsid running" reads as the
 * opposite of the finding, so each check whose title is a goal has its finding per outcome here.
 * Titles that only name a setting ("iscsid.conf node.startup") read right either way and are kept.
 * Applied once to every result (runDoctor), so the CLI, `--json` and the Doctor view agree. A check
 * whose finding depends on what it found (sessions.portals: expired or not) words its own title.
 */
import type { DoctorCheck, DoctorStatus } from './types.js';

type Findings = Partial<Record<DoctorStatus, string>>;

const bad = (text: string): Findings => ({ warn: text, fail: text });

const FINDINGS: Readonly<Record<string, Findings>> = {
  'csi.drivers': bad('a CSI driver not registered or its node plugin not running'),
  'iscsid.running': { fail: 'iscsid not running', warn: 'iscsid not running as a daemon' },
  'multipathd.running': bad('multipathd not running'),
  'udevd.running': bad('systemd-udevd not running'),
  'volumes.expected-paths': bad('volumes short of their expected paths'),
  'initiator.name': bad('initiator name missing or invalid'),
  'initiator.unique': bad('initiator name not unique to this node'),
  'kubelet.root': bad('kubelet root not found'),
  'kubelet.running': bad('kubelet not running'),
  'multipath.claims': { pass: 'no multipath map over a device it must not hold' },
  'node-records.startup': bad('node records log in automatically at boot'),
  'node-records.intact': bad('node record files damaged'),
  'root.iscsi': bad('root or boot filesystem on iSCSI'),
  'iscsi.versions': bad('iscsiadm and iscsid versions differ'),
  'netns.host': bad("console not in the host's network namespace"),
};

/** The check with its title phrased as its finding (a module check: `iscsi_tcp module missing`). */
export function asFinding(c: DoctorCheck): DoctorCheck {
  const module = /^module\.(.+)$/.exec(c.id);
  if (module && (c.status === 'warn' || c.status === 'fail'))
    return { ...c, title: `${module[1]} module missing` };
  const title = FINDINGS[c.id]?.[c.status];
  return title ? { ...c, title } : c;
}
