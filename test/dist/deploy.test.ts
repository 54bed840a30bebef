import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const repo = process.cwd();
const read = (p: string) => readFileSync(join(repo, p), 'utf8');

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML; each field is asserted below.
type Doc = any;

function docs(path: string): Doc[] {
  const all = parseAllDocuments(read(path));
  for (const d of all) expect(d.errors, `${path}: ${d.errors.join('; ')}`).toEqual([]);
  return all.map((d) => d.toJS());
}

describe('deploy/daemonset.yaml', () => {
  const all = docs('deploy/daemonset.yaml');
  const ds = all.find((d) => d.kind === 'DaemonSet');
  const pod = ds?.spec?.template?.spec;
  const metrics = pod?.containers?.find((c: Doc) => c.name === 'metrics');
  const log = pod?.containers?.find((c: Doc) => c.name === 'status-log');

  it('is a Namespace (privileged Pod Security) and a DaemonSet, and needs no RBAC', () => {
    expect(all.map((d) => d.kind)).toEqual(['Namespace', 'DaemonSet']);
    expect(all[0].metadata.labels['pod-security.kubernetes.io/enforce']).toBe('privileged');
    expect(ds.metadata.namespace).toBe(all[0].metadata.name);
    expect(ds.spec.selector.matchLabels).toEqual(ds.spec.template.metadata.labels);
    expect(pod.containers.map((c: Doc) => c.name)).toEqual(['metrics', 'status-log']);
  });

  it('serves metrics read-only on the named port metrics (9853, every address), probed on /healthz', () => {
    const argv = [...metrics.command, ...metrics.args];
    expect(argv.join(' ')).toContain('--root /host --exec nsenter');
    expect(argv.slice(argv.indexOf('serve'))).toEqual(['serve', '--listen', ':9853']);
    expect(argv).not.toContain('--write');
    expect(metrics.ports).toEqual([{ name: 'metrics', containerPort: 9853, protocol: 'TCP' }]);
    for (const probe of [metrics.readinessProbe, metrics.livenessProbe])
      expect(probe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    // $(KUBELET_ROOT) in args is expanded by the kubelet from the container's env.
    expect(metrics.env.find((e: Doc) => e.name === 'KUBELET_ROOT').value).toBe('/var/lib/kubelet');
  });

  it('keeps the JSON log mode: headless status --json in a loop with sleep, through nsenter, on stdout', () => {
    const script = [...(log.command ?? []), ...(log.args ?? [])].join(' ');
    expect(script).toMatch(/while :; do/);
    expect(script).toContain('--root /host --exec nsenter');
    expect(script).toContain('status --json');
    expect(script).toMatch(/sleep "\$INTERVAL_SECONDS"/);
    expect(script).toContain("trap 'exit 0' TERM");
    expect(log.env.find((e: Doc) => e.name === 'INTERVAL_SECONDS').value).toMatch(/^\d+$/);
  });

  it('has the least-privilege settings that work: no token, hostPID, read-only root fs and host mount', () => {
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.serviceAccountName).toBeUndefined();
    expect(pod.hostPID).toBe(true);
    expect(pod.hostNetwork).toBe(false);
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
    for (const c of pod.containers) {
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(c.securityContext.privileged).toBe(true);
      // privileged implies privilege escalation; setting it false is rejected by the API server.
      expect(c.securityContext.allowPrivilegeEscalation).not.toBe(false);
      const mount = c.volumeMounts.find((m: Doc) => m.mountPath === '/host');
      expect(mount).toMatchObject({ readOnly: true, mountPropagation: 'HostToContainer' });
      const vol = pod.volumes.find((v: Doc) => v.name === mount.name);
      expect(vol.hostPath).toEqual({ path: '/', type: 'Directory' });
      expect(c.resources.limits.memory).toBeDefined();
    }
  });

  it('requests the memory the exporter was measured to hold (60 MiB after 10 minutes at 50 sessions: bench serve.50.rss) under a limit', () => {
    expect(metrics.resources.requests).toEqual({ cpu: '10m', memory: '64Mi' });
    expect(metrics.resources.limits).toEqual({ memory: '256Mi' });
  });

  it('runs serve with Node options Node accepts in NODE_OPTIONS (a refused one stops the container at start)', () => {
    const options = metrics.env.find((e: Doc) => e.name === 'NODE_OPTIONS').value;
    expect(options.split(' ')).toEqual(['--max-semi-space-size=1', '--jitless']);
    const r = spawnSync(process.execPath, ['-e', 'process.exit(0)'], {
      env: { ...process.env, NODE_OPTIONS: options },
      encoding: 'utf8',
    });
    expect(r.stderr).not.toMatch(/not allowed in NODE_OPTIONS/);
    expect(r.status).toBe(0);
  });
});

describe('deploy/debug-pod.yaml', () => {
  it('is one privileged Pod with host namespaces, the host root at /host and no token', () => {
    const [pod, ...rest] = docs('deploy/debug-pod.yaml');
    expect(rest).toEqual([]);
    expect(pod.kind).toBe('Pod');
    expect(pod.spec).toMatchObject({ hostPID: true, hostNetwork: true, automountServiceAccountToken: false });
    const c = pod.spec.containers[0];
    expect(c).toMatchObject({ stdin: true, tty: true });
    expect(c.securityContext).toMatchObject({ privileged: true, readOnlyRootFilesystem: true });
    expect(c.volumeMounts[0].mountPath).toBe('/host');
    expect(pod.spec.volumes[0].hostPath.path).toBe('/');
  });
});

describe('deploy/debug-node.sh', () => {
  it('uses kubectl debug node/<n> -it with --profile=sysadmin and the nsenter exec mode', () => {
    const sh = read('deploy/debug-node.sh');
    expect(sh.startsWith('#!/bin/sh\n')).toBe(true);
    expect(sh).toContain('kubectl debug "node/$node" -it --profile=sysadmin --image="$image"');
    expect(sh).toContain('/usr/local/bin/iscsi-console --root /host --exec nsenter "$@"');
  });
});

describe('Dockerfile', () => {
  const df = read('Dockerfile');
  const runtime = df.slice(df.lastIndexOf('\nFROM '));

  it('ships the single executable and uses the host tools by default (--root /host --exec nsenter)', () => {
    expect(runtime).toContain('COPY --from=build /src/dist/iscsi-console /usr/local/bin/iscsi-console');
    expect(runtime).toContain(
      'ENTRYPOINT ["/usr/local/bin/iscsi-console", "--root", "/host", "--exec", "nsenter"]',
    );
    expect(df).toContain('npm run build:binary');
  });

  it('installs no open-iscsi, multipath-tools or udev into the image', () => {
    const installs = [...df.matchAll(/apt-get install[^\n]*(?:\\\n[^\n]*)*/g)].map((m) => m[0]).join(' ');
    expect(installs).not.toMatch(/open-iscsi|multipath-tools|udev|iscsiadm/);
    expect(runtime).not.toMatch(/apt-get|apk add|dnf |yum /);
  });

  it('.dockerignore keeps node_modules and dist out of the build context', () => {
    const ignore = read('.dockerignore').split('\n');
    expect(ignore).toContain('node_modules');
    expect(ignore).toContain('dist');
  });
});
