import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { promtool, REPO } from './promtool.js';
import { alerts, RULE_FILE, ruleGroups } from './rule-file.js';

/**
 * The alert rules, checked and unit-tested by the real promtool: one test file per alert under
 * test/monitoring/rules/ (firing and not firing), plus the conventions every alert keeps.
 */

const TESTS = 'test/monitoring/rules';
/** A runbook is docs/runbooks/ plus the alert name plus this extension. */
const MARKDOWN = 'md';

/**
 * The metric families the exporter writes, as the metrics contract names them (the exporter's
 * docs list each with its type and labels), and the node_exporter ≥ 1.12 dmmultipath families the rules join
 * (prometheus/node_exporter collector/dmmultipath_linux.go). A rule naming anything else names a
 * series nobody writes and never fires.
 */
const KNOWN_FAMILIES = new Set([
  'iscsi_session_info',
  'iscsi_session_state',
  'iscsi_session_verdict',
  'iscsi_session_health',
  'iscsi_session_recovery_timeout_seconds',
  'iscsi_session_down_since_timestamp_seconds',
  'iscsi_portal_down',
  'iscsi_portal_sessions',
  'iscsi_device_info',
  'iscsi_device_state',
  'iscsi_device_holder_info',
  'iscsi_volume_info',
  'iscsi_node_problems',
  'iscsi_session_state_changes_total',
  'iscsi_events_total',
  'iscsi_console_build_info',
  'iscsi_console_read_duration_seconds',
  'iscsi_console_last_read_timestamp_seconds',
  'iscsi_console_read_errors_total',
  'iscsi_console_series_dropped_total',
  'node_dmmultipath_device_info',
  'node_dmmultipath_device_paths',
  'node_dmmultipath_device_paths_active',
  'node_dmmultipath_device_paths_failed',
  'up',
]);

interface AlertTest {
  eval_time: string;
  alertname: string;
  exp_alerts?: unknown[];
}
interface TestFile {
  rule_files: string[];
  tests: { alert_rule_test?: AlertTest[] }[];
}

function testFile(alert: string): TestFile {
  return parse(readFileSync(join(REPO, TESTS, `${alert}.yaml`), 'utf8')) as TestFile;
}

describe('alert rules', () => {
  it('pass promtool check rules', () => {
    const r = promtool('check', 'rules', RULE_FILE);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('cover the alerts the fleet needs', () => {
    expect(alerts().map((a) => a.alert)).toEqual([
      'ISCSIPortalDown',
      'ISCSISessionFailed',
      'ISCSIMultipathLastPath',
      'ISCSIMultipathDegraded',
      'ISCSISessionStale',
      'ISCSISessionFlapping',
      'ISCSIConsoleDown',
      'ISCSIConsoleReadsFailing',
      'ISCSIDuplicateInitiator',
    ]);
  });

  it.each(alerts().map((a) => [a.alert!, a] as const))(
    '%s: severity, summary, description, runbook',
    (name, a) => {
      expect(['critical', 'warning']).toContain(a.labels?.severity);
      expect(a.annotations?.summary?.length).toBeGreaterThan(10);
      expect(a.annotations?.description?.length).toBeGreaterThan(40);
      const runbook = `docs/runbooks/${name}.${MARKDOWN}`;
      expect(a.annotations?.runbook_url).toBe(runbook);
      expect(existsSync(join(REPO, runbook))).toBe(true);
    },
  );

  it('name only series the exporter, node_exporter or the recording rules write', () => {
    const recorded = new Set(
      ruleGroups().flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))),
    );
    const text = ruleGroups()
      .flatMap((g) => g.rules.flatMap((r) => [r.expr, ...Object.values(r.annotations ?? {})]))
      .join('\n');
    // Whole identifiers: metric names and recording-rule names (level:metric:operations).
    const tokens = text.match(/[A-Za-z_:][A-Za-z0-9_:]*/g) ?? [];
    const named = new Set(
      tokens.filter((t) => /^(?:iscsi|node)_[a-z_]+$/.test(t) || /^[a-z_]+:[a-z_]+:[a-z_]+$/.test(t)),
    );
    const unknown = [...named].filter((n) => !KNOWN_FAMILIES.has(n) && !recorded.has(n));
    expect(unknown).toEqual([]);
    for (const r of recorded) expect(text).toContain(r);
  });

  it('have one promtool test file per alert, each firing and not firing', () => {
    const files = readdirSync(join(REPO, TESTS)).filter((f) => f.endsWith('.yaml'));
    expect(files.sort()).toEqual(
      alerts()
        .map((a) => `${a.alert}.yaml`)
        .sort(),
    );
    for (const a of alerts()) {
      const cases = testFile(a.alert!).tests.flatMap((t) => t.alert_rule_test ?? []);
      const mine = cases.filter((c) => c.alertname === a.alert);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${a.alert} fires`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${a.alert} stays quiet`,
      ).toBe(true);
    }
  });

  it.each(alerts().map((a) => [a.alert!]))('%s: promtool test rules', (name) => {
    const r = promtool('test', 'rules', join(TESTS, `${name}.yaml`));
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });
});
