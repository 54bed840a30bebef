import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FsHost } from '../../src/engine/host/fs-host.js';
import type { RunOptions, RunResult } from '../../src/engine/host/host.js';

export const INITIATOR = 'iqn.1993-08.org.debian:01:labguest0001';
export const TARGET = 'iqn.2024-01.lab.example:storage.target1';
export const RELEASE = '6.1.0-57-amd64';
/** A CHAP secret planted in a node record: it must never reach any doctor output. */
export const SECRET = 'Sup3rS3cretChap';

/**
 * A hand-made `--root` tree of a healthy Kubernetes node (test/fixtures/doctor/<tmp>): daemons in
 * /proc, modules in /sys/module, open-iscsi config, one node record, a kubelet root, and mountinfo.
 * Values follow the captures (open-iscsi 2.1.8, Debian kernel 6.1, node-show.txt records).
 */
export class FixtureNode {
  readonly root: string;

  constructor() {
    const base = join(process.cwd(), 'test', 'fixtures', 'doctor');
    mkdirSync(base, { recursive: true });
    this.root = mkdtempSync(join(base, 'node-'));
    this.healthy();
  }

  private at(p: string): string {
    return join(this.root, p);
  }

  write(path: string, text: string): this {
    mkdirSync(dirname(this.at(path)), { recursive: true });
    writeFileSync(this.at(path), text);
    return this;
  }

  mkdir(path: string): this {
    mkdirSync(this.at(path), { recursive: true });
    return this;
  }

  link(path: string, target: string): this {
    mkdirSync(dirname(this.at(path)), { recursive: true });
    rmSync(this.at(path), { force: true });
    symlinkSync(target, this.at(path));
    return this;
  }

  remove(path: string): this {
    rmSync(this.at(path), { recursive: true, force: true });
    return this;
  }

  /** A process as /proc shows it; `unixSockets` become lines of its /proc/<pid>/net/unix. */
  process(pid: number, comm: string, argv: string[] = [comm], unixSockets: string[] = []): this {
    this.write(`/proc/${pid}/comm`, `${comm}\n`);
    this.write(`/proc/${pid}/cmdline`, `${argv.join('\0')}\0`);
    const header = 'Num       RefCount Protocol Flags    Type St Inode Path\n';
    const lines = unixSockets.map(
      (s, i) => `0000000000000000: 00000002 00000000 00010000 0001 01 ${2000 + i} ${s}\n`,
    );
    this.write(`/proc/${pid}/net/unix`, header + lines.join(''));
    return this;
  }

  nodeRecord(iqn: string, portalDir: string, fields: Record<string, string>): this {
    const body = Object.entries(fields)
      .map(([k, v]) => `${k} = ${v}\n`)
      .join('');
    return this.write(
      `/etc/iscsi/nodes/${iqn}/${portalDir}/default`,
      `# BEGIN RECORD 2.1.8\nnode.name = ${iqn}\n${body}# END RECORD\n`,
    );
  }

  private healthy(): void {
    this.process(1, 'systemd', ['/sbin/init']);
    this.process(612, 'iscsid', ['/sbin/iscsid'], ['@ISCSIADM_ABSTRACT_NAMESPACE']);
    this.process(613, 'iscsid', ['/sbin/iscsid']);
    this.process(640, 'multipathd', ['/sbin/multipathd', '-d', '-s']);
    this.process(301, 'systemd-udevd', ['/lib/systemd/systemd-udevd']);
    this.process(900, 'kubelet', ['/usr/bin/kubelet', '--config=/var/lib/kubelet/config.yaml']);
    this.write('/run/iscsid.pid', '613\n');
    this.link('/proc/self/ns/net', 'net:[4026531840]');
    this.link('/proc/1/ns/net', 'net:[4026531840]');
    for (const m of ['iscsi_tcp', 'scsi_transport_iscsi', 'dm_multipath'])
      this.mkdir(`/sys/module/${m}/parameters`);
    this.write('/proc/sys/kernel/osrelease', `${RELEASE}\n`);
    this.write(`/lib/modules/${RELEASE}/modules.builtin`, 'kernel/drivers/block/loop.ko\n');
    this.write(
      '/etc/iscsi/initiatorname.iscsi',
      `## DO NOT EDIT OR REMOVE THIS FILE!\n## If you remove this file, the iSCSI daemon will not start.\nInitiatorName=${INITIATOR}\n`,
    );
    this.write(
      '/etc/iscsi/iscsid.conf',
      '# iscsid.conf\nnode.startup = manual\nnode.session.timeo.replacement_timeout = 120\n',
    );
    this.nodeRecord(TARGET, '127.0.0.1,3260,1', {
      'node.tpgt': '1',
      'node.startup': 'manual',
      'node.session.auth.authmethod': 'CHAP',
      'node.session.auth.username': 'user',
      'node.session.auth.password': SECRET,
      'node.session.timeo.replacement_timeout': '120',
    });
    this.mkdir(
      '/var/lib/kubelet/pods/0b7e8c1e-0000-4000-8000-000000000001/volumes/kubernetes.io~empty-dir/x',
    );
    // Root on a virtio disk, /boot on its first partition: not iSCSI.
    this.write(
      '/proc/1/mountinfo',
      [
        '22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro',
        '23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw',
        '24 22 254:2 / /boot rw,relatime shared:2 - ext4 /dev/vda2 rw',
        '',
      ].join('\n'),
    );
    this.link('/sys/dev/block/254:1', '../../devices/pci0000:00/0000:00:04.0/virtio2/block/vda/vda1');
    this.link('/sys/dev/block/254:2', '../../devices/pci0000:00/0000:00:04.0/virtio2/block/vda/vda2');
    this.link('/sys/class/block/vda1', '../../devices/pci0000:00/0000:00:04.0/virtio2/block/vda/vda1');
    this.link('/sys/class/block/vda2', '../../devices/pci0000:00/0000:00:04.0/virtio2/block/vda/vda2');
    this.mkdir('/sys/class/iscsi_session/session1');
    this.write('/sys/class/iscsi_session/session1/recovery_tmo', '120\n');
  }

  /** Makes sda (LUN 1 of session1) a real iSCSI disk in the tree and mounts `mountPoint` from sda1. */
  iscsiRoot(mountPoint: string): this {
    const dev = '../../devices/platform/host0/session1/target0:0:0/0:0:0:1/block/sda';
    this.link('/sys/dev/block/8:1', `${dev}/sda1`);
    this.link('/sys/class/block/sda1', `${dev}/sda1`);
    const text = `22 1 8:1 / ${mountPoint} rw,relatime shared:1 - ext4 /dev/sda1 rw\n`;
    return this.write(
      '/proc/1/mountinfo',
      mountPoint === '/' ? text : `21 1 254:1 / / rw - ext4 /dev/vda1 rw\n${text}`,
    );
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export type VersionAnswers = Partial<Record<'iscsiadm' | 'iscsid', string | null>>;

/**
 * FsHost over the fixture tree whose only difference is how commands answer: `--version` of
 * iscsiadm/iscsid from a table (null = not installed), so version checks run without open-iscsi here.
 */
export class FixtureHost extends FsHost {
  readonly ran: string[][] = [];

  constructor(
    root: string,
    private readonly versions: VersionAnswers = { iscsiadm: '2.1.8', iscsid: '2.1.8' },
  ) {
    super({ root, runner: { mode: 'direct' }, hostname: 'fixture-node' });
  }

  override async run(argv: readonly string[], _o?: RunOptions): Promise<RunResult> {
    this.ran.push([...argv]);
    const tool = argv[0] as 'iscsiadm' | 'iscsid';
    const v = this.versions[tool];
    const result: RunResult = {
      argv: [...argv],
      exitCode: 0,
      stdout: '',
      stderr: '',
      timedOut: false,
      durationMs: 1,
    };
    if (v === undefined || v === null) return { ...result, exitCode: null, spawnError: 'ENOENT' };
    return { ...result, stdout: `${tool} version ${v}\n` };
  }
}
