import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { REPO } from './promtool.js';

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML; each field is asserted below.
type Doc = any;

/**
 * Every manifest under deploy/ parses, and each is a kind the cluster knows with the fields it
 * requires; the monitoring pieces agree with the DaemonSet they point at (labels, port name, job).
 */

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(f) ? [relative(REPO, p)] : [];
  });
}

function docs(path: string): Doc[] {
  const all = parseAllDocuments(readFileSync(join(REPO, path), 'utf8'));
  for (const d of all) expect(d.errors, `${path}: ${d.errors.join('; ')}`).toEqual([]);
  return all.map((d) => d.toJS());
}

/** apiVersion and kind of each object deploy/ may hold. */
const KINDS: Record<string, string> = {
  Namespace: 'v1',
  Pod: 'v1',
  DaemonSet: 'apps/v1',
  PodMonitor: 'monitoring.coreos.com/v1',
  PrometheusRule: 'monitoring.coreos.com/v1',
};
/** Files that are not Kubernetes objects: a Prometheus rule file and a strategic merge patch. */
const NOT_OBJECTS = new Set([
  'deploy/monitoring/iscsi-console-rules.yaml',
  'deploy/npd/node-problem-detector-patch.yaml',
]);

const daemonSet = docs('deploy/daemonset.yaml').find((d) => d.kind === 'DaemonSet');
const podTemplate = daemonSet.spec.template;

describe('deploy/ manifests', () => {
  const files = yamlFiles(join(REPO, 'deploy'));

  it('include the PodMonitor, both rule files and the NPD patch', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'deploy/monitoring/podmonitor.yaml',
        'deploy/monitoring/iscsi-console-rules.yaml',
        'deploy/monitoring/iscsi-console-prometheusrule.yaml',
        'deploy/npd/node-problem-detector-patch.yaml',
      ]),
    );
  });

  it.each(files.filter((f) => !NOT_OBJECTS.has(f)))(
    '%s: known kinds with apiVersion, name and namespace',
    (f) => {
      for (const d of docs(f)) {
        expect(Object.keys(KINDS), `${f}: kind ${d.kind}`).toContain(d.kind);
        expect(d.apiVersion).toBe(KINDS[d.kind]);
        // debug-pod.yaml is a template: NODE_NAME is replaced before it is applied.
        expect(d.metadata.name.replace('NODE_NAME', 'node-1')).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
        if (d.kind !== 'Namespace') expect(d.metadata.namespace).toBe('iscsi-console');
      }
    },
  );
});

describe('deploy/monitoring/podmonitor.yaml', () => {
  const [pm] = docs('deploy/monitoring/podmonitor.yaml');

  it('selects the DaemonSet pods and scrapes its named port', () => {
    for (const [k, v] of Object.entries(pm.spec.selector.matchLabels))
      expect(podTemplate.metadata.labels[k], k).toBe(v);
    const ports = podTemplate.spec.containers.flatMap((c: Doc) => c.ports ?? []).map((p: Doc) => p.name);
    expect(pm.spec.podMetricsEndpoints).toHaveLength(1);
    const ep = pm.spec.podMetricsEndpoints[0];
    expect(ports).toContain(ep.port);
    expect(ep.path).toBe('/metrics');
  });

  it('names the job iscsi-console (ISCSIConsoleDown matches it) and the instance by node name', () => {
    expect(podTemplate.metadata.labels[pm.spec.jobLabel]).toBe('iscsi-console');
    const rules = readFileSync(join(REPO, 'deploy/monitoring/iscsi-console-rules.yaml'), 'utf8');
    expect(rules).toContain('up{job="iscsi-console"}');
    expect(pm.spec.podMetricsEndpoints[0].relabelings).toContainEqual({
      sourceLabels: ['__meta_kubernetes_pod_node_name'],
      targetLabel: 'instance',
      action: 'replace',
    });
  });
});

describe('deploy/npd/node-problem-detector-patch.yaml', () => {
  const [patch] = docs('deploy/npd/node-problem-detector-patch.yaml');
  const spec = patch.spec.template.spec;
  const npd = spec.containers.find((c: Doc) => c.name === 'node-problem-detector');

  it('loads the monitor from the ConfigMap it mounts and runs the binary the init container copies', () => {
    const flag = npd.command.find((a: string) => a.startsWith('--config.custom-plugin-monitor='));
    const config = flag.split('=')[1];
    const mountOf = (name: string) => npd.volumeMounts.find((m: Doc) => m.name === name);
    expect(config).toBe(`${mountOf('iscsi-console-config').mountPath}/iscsi-console-monitor.json`);
    const monitor = JSON.parse(readFileSync(join(REPO, 'deploy/npd/iscsi-console-monitor.json'), 'utf8'));
    const bin = mountOf('iscsi-console-bin').mountPath;
    for (const r of monitor.rules) expect(r.path).toBe(`${bin}/iscsi-console`);
    expect(spec.initContainers[0].command.join(' ')).toContain(`${bin}/iscsi-console`);
    for (const r of monitor.rules)
      expect(r.args.slice(0, 2)).toEqual(['--root', mountOf('iscsi-console-host').mountPath]);
  });

  it('mounts the host read-only', () => {
    const host = npd.volumeMounts.find((m: Doc) => m.name === 'iscsi-console-host');
    expect(host).toMatchObject({ readOnly: true, mountPropagation: 'HostToContainer' });
    expect(spec.volumes.find((v: Doc) => v.name === 'iscsi-console-host').hostPath.path).toBe('/');
  });
});

describe('deploy/monitoring/textfile (systemd timer)', () => {
  const unit = (f: string) => readFileSync(join(REPO, 'deploy/monitoring/textfile', f), 'utf8');

  it('writes one read-only snapshot into a .prom file of the textfile directory', () => {
    const exec = /^ExecStart=(.*)$/m.exec(unit('iscsi-console-textfile.service'))?.[1] ?? '';
    expect(exec).toMatch(/^\/usr\/local\/bin\/iscsi-console metrics --textfile \/\S+\/iscsi\.prom$/);
    expect(exec).not.toContain('--write');
    expect(unit('iscsi-console-textfile.service')).toMatch(/^Type=oneshot$/m);
  });

  it('runs it on a timer', () => {
    expect(unit('iscsi-console-textfile.timer')).toMatch(/^OnUnitActiveSec=\d+min$/m);
    expect(unit('iscsi-console-textfile.timer')).toMatch(/^WantedBy=timers\.target$/m);
  });
});
