import { nodePluginText } from '../../snapshot/csi/describe.js';
import { driverLabel } from '../../snapshot/csi/paths.js';
import { readCsi } from '../../snapshot/csi/read-csi.js';
import { defineCheck } from '../define-check.js';

/**
 * Which CSI drivers are registered with kubelet (node-driver-registrar's
 * `<kubelet root>/plugins_registry/<driver>-reg.sock`, docs/csi-drivers.md) and whether their node
 * plugins run — so cleanup can say "the driver is running and may still act on this". A registered
 * driver whose node plugin is gone cannot unstage its volumes: their sessions stay until it returns.
 */
export const csiDrivers = defineCheck(
  { id: 'csi.drivers', title: 'CSI drivers registered and their node plugins running' },
  (ctx) => {
    const problems: string[] = [];
    const { state } = readCsi(ctx.host, ctx.kubeletRoot, [], problems, ctx.processes);
    if (state.drivers.length === 0) {
      return { status: 'pass', evidence: 'no CSI driver registered and no CSI volume on this node' };
    }
    const lines: string[] = [];
    const stopped: string[] = [];
    const unregistered: string[] = [];
    for (const d of state.drivers) {
      const vols = state.volumes.filter((v) => v.driver === d.name).length;
      const files = state.driverFiles.filter((f) => f.driver === d.name).length;
      const run = nodePluginText(d);
      lines.push(
        `${d.name} (${driverLabel(d.name)}): ${d.registered ? 'registered' : 'NOT registered'}; ${run}; ${vols} CSI volume(s), ${files} driver file(s)`,
      );
      if (d.registered && d.running === false) stopped.push(d.name);
      if (!d.registered && vols + files > 0) unregistered.push(d.name);
    }
    if (stopped.length + unregistered.length === 0) return { status: 'pass', evidence: lines.join('\n') };
    return {
      status: 'warn',
      evidence: lines.join('\n'),
      hint: `${[...stopped, ...unregistered].join(', ')}: volumes on this node but no running, registered node plugin — kubelet cannot NodeUnstage/NodeUnpublish them; check the driver's DaemonSet before cleaning up its sessions`,
    };
  },
);
