/**
 * Kernel uevents through `udevadm monitor --kernel`: sessions, SCSI devices and block devices are
 * announced the moment the kernel adds or removes them (docs/architecture.md#sysfs-is-polled-not-watched: udevadm saw add/remove at once where
 * sysfs polling and inotify saw nothing). Attribute changes (session FAILED, device offline) are not
 * uevents; the sysfs poll covers those.
 */
import type { Host, LineStream } from '../engine/host/host.js';

const UDEV_MONITOR_ARGV = [
  'udevadm',
  'monitor',
  '--kernel',
  '--subsystem-match=iscsi_session',
  '--subsystem-match=scsi',
  '--subsystem-match=block',
] as const;

/** `KERNEL[1234.567890] add      /devices/platform/host0/session1 (iscsi_session)` (udevadm(8) monitor). */
const UEVENT = /^KERNEL\[[\d.]+\]\s+(\S+)\s+(\S+)\s+\((\S+)\)/;

interface Uevent {
  action: string;
  devpath: string;
  subsystem: string;
}

/** Parses one monitor line; header and blank lines give undefined. */
export function parseUeventLine(line: string): Uevent | undefined {
  const m = UEVENT.exec(line);
  return m ? { action: m[1]!, devpath: m[2]!, subsystem: m[3]! } : undefined;
}

export interface UdevSource {
  stop(): Promise<void>;
}

/** What the simulator offers instead of a kernel netlink socket (src/sim Simulator.onChange). */
interface SimChanges {
  onChange(listener: (c: { kind: string; what: string }) => void): () => void;
}

/**
 * The simulated changes a real kernel announces with a uevent: sessions, SCSI devices, dm maps and
 * loop devices coming and going. State changes (FAILED, offline) and mounts are deliberately left
 * out, as on a real node, so the simulator exercises the poll exactly as a node does.
 */
const SIM_UEVENT = /^(login|logout|add|remove|create|attach|detach)\b/;

function simChanges(host: Host): SimChanges | undefined {
  const sim = (host as { sim?: Partial<SimChanges> }).sim;
  return typeof sim?.onChange === 'function' ? (sim as SimChanges) : undefined;
}

/**
 * Starts the monitor when the host can stream commands. `onStatus` reports whether it is running
 * (and why not); an exit is reported once and not retried: the poll keeps the store correct, only slower.
 */
export function startUdevSource(
  host: Host,
  onEvent: (e: Uevent) => void,
  onStatus: (active: boolean, detail: string) => void,
): UdevSource | undefined {
  const sim = simChanges(host);
  if (sim && !host.spawnStream) {
    const off = sim.onChange((c) => {
      if (SIM_UEVENT.test(c.what))
        onEvent({ action: c.what.split(' ')[0]!, devpath: c.what, subsystem: c.kind });
    });
    onStatus(true, 'simulated kernel uevents (add/remove only)');
    return {
      async stop() {
        off();
      },
    };
  }
  if (!host.spawnStream) {
    onStatus(false, 'this host cannot stream commands; add/remove seen by the sysfs poll');
    return undefined;
  }
  let stream: LineStream;
  try {
    stream = host.spawnStream(UDEV_MONITOR_ARGV, {
      onLine(line) {
        const e = parseUeventLine(line);
        if (e) onEvent(e);
      },
    });
  } catch (e) {
    onStatus(false, `udevadm monitor could not start: ${(e as Error).message}`);
    return undefined;
  }
  let stopping = false;
  onStatus(true, UDEV_MONITOR_ARGV.join(' '));
  void stream.exited.then((x) => {
    if (stopping) return;
    const why = x.spawnError
      ? `udevadm not available (${x.spawnError})`
      : `udevadm monitor exited (${x.exitCode ?? 'killed'})${x.stderr ? `: ${x.stderr}` : ''}`;
    onStatus(false, why);
  });
  return {
    async stop() {
      stopping = true;
      await stream.stop();
    },
  };
}
