import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './promtool.js';

/**
 * deploy/npd/iscsi-console-monitor.json against node-problem-detector's own rules for a custom plugin
 * monitor. NPD decodes it with encoding/json, which ignores unknown fields silently: a misspelt
 * field would do nothing, so every name is checked here. From kubernetes/node-problem-detector:
 * - pkg/custompluginmonitor/types/config.go: CustomPluginConfig (plugin, pluginConfig, source,
 *   conditions, rules, metricsReporting), pluginGlobalConfig (invoke_interval, timeout,
 *   max_output_length, concurrency, enable_message_change_based_condition_update,
 *   skip_initial_status); defaults 30s / 5s / 80 / 3; durations parsed with time.ParseDuration;
 *   Validate: plugin must be "custom", a rule timeout must not exceed the global timeout, a
 *   permanent rule's condition must have a default condition;
 * - pkg/custompluginmonitor/types/types.go: CustomRule (type, condition, reason, path, args,
 *   timeout, invoke_interval); exit status OK=0, NonOK=1, Unknown=2;
 * - pkg/types/types.go: Condition (type, status, transition, reason, message, taintEnabled,
 *   taintKey, taintValue, taintEffect); Type "temporary" | "permanent";
 * - https://github.com/kubernetes/node-problem-detector/blob/master/docs/custom_plugin_monitor.md: the condition's reason and message are the healthy defaults; a
 *   rule's message is the plugin's stdout cut to max_output_length.
 */

const TOP = ['plugin', 'pluginConfig', 'source', 'conditions', 'rules', 'metricsReporting'];
const PLUGIN_CONFIG = [
  'invoke_interval',
  'timeout',
  'max_output_length',
  'concurrency',
  'enable_message_change_based_condition_update',
  'skip_initial_status',
];
const CONDITION = [
  'type',
  'status',
  'transition',
  'reason',
  'message',
  'taintEnabled',
  'taintKey',
  'taintValue',
  'taintEffect',
];
const RULE = ['type', 'condition', 'reason', 'path', 'args', 'timeout', 'invoke_interval'];
/** Go's time.ParseDuration syntax (unsigned: NPD has no use for a negative interval). */
const GO_DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
/** The `check` subcommands (the NPD contract: exit 0 false, 1 true, 2 cannot tell; one line ≤ 80). */
const CHECKS = ['outage', 'failed', 'degraded', 'stale', 'iscsid', 'doctor'];

interface Monitor {
  plugin: string;
  pluginConfig: Record<string, unknown>;
  source: string;
  metricsReporting?: boolean;
  conditions: Record<string, unknown>[];
  rules: Record<string, unknown>[];
}

/** Seconds of a Go duration string (units as time.ParseDuration knows them). */
function seconds(d: string): number {
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of d.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * unit[m[2]!]!;
  return total;
}

const monitor = JSON.parse(
  readFileSync(join(REPO, 'deploy', 'npd', 'iscsi-console-monitor.json'), 'utf8'),
) as Monitor;

describe('NPD custom plugin monitor', () => {
  it('uses only the fields config.go and types.go decode', () => {
    for (const k of Object.keys(monitor)) expect(TOP, k).toContain(k);
    for (const k of Object.keys(monitor.pluginConfig)) expect(PLUGIN_CONFIG, k).toContain(k);
    for (const c of monitor.conditions) for (const k of Object.keys(c)) expect(CONDITION, k).toContain(k);
    for (const r of monitor.rules) for (const k of Object.keys(r)) expect(RULE, k).toContain(k);
  });

  it('passes Validate and ApplyConfiguration', () => {
    expect(monitor.plugin).toBe('custom');
    expect(monitor.source).toMatch(/\S/);
    const g = monitor.pluginConfig;
    expect(g.invoke_interval).toMatch(GO_DURATION);
    expect(g.timeout).toMatch(GO_DURATION);
    expect(Number.isInteger(g.max_output_length) && (g.max_output_length as number) > 0).toBe(true);
    expect(Number.isInteger(g.concurrency) && (g.concurrency as number) > 0).toBe(true);
    expect(typeof g.enable_message_change_based_condition_update).toBe('boolean');
    const global = seconds(g.timeout as string);
    const types = new Set(monitor.conditions.map((c) => c.type));
    for (const r of monitor.rules) {
      expect(['temporary', 'permanent']).toContain(r.type);
      expect(r.reason).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(r.path).toMatch(/^\//);
      expect(Array.isArray(r.args) && (r.args as unknown[]).every((a) => typeof a === 'string')).toBe(true);
      if (r.timeout !== undefined) {
        expect(r.timeout).toMatch(GO_DURATION);
        expect(seconds(r.timeout as string)).toBeLessThanOrEqual(global);
      }
      if (r.invoke_interval !== undefined) expect(r.invoke_interval).toMatch(GO_DURATION);
      // A permanent rule sets a condition that must have a default; a temporary one must not name one.
      if (r.type === 'permanent') expect(types.has(r.condition)).toBe(true);
      else expect(r.condition).toBeUndefined();
    }
    for (const c of monitor.conditions) {
      expect(c.type).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(c.reason).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(typeof c.message).toBe('string');
    }
  });

  it('keeps the check contract: 80-character messages, the 5 s budget, and time between runs', () => {
    const g = monitor.pluginConfig;
    expect(g.max_output_length).toBe(80);
    expect(seconds(g.timeout as string)).toBeLessThanOrEqual(5);
    // Every rule run one after another (concurrency 1: each reads the whole node) fits in an interval.
    const runs = monitor.rules.length * seconds(g.timeout as string);
    expect(runs).toBeLessThanOrEqual(seconds(g.invoke_interval as string));
  });

  it('sets the three NodeConditions and a temporary stale rule, each calling iscsi-console check', () => {
    const perm = monitor.rules.filter((r) => r.type === 'permanent').map((r) => r.condition);
    expect(perm.sort()).toEqual(['ISCSIPathsDegraded', 'ISCSIPortalDown', 'ISCSISessionsFailed']);
    expect(monitor.conditions.map((c) => c.type).sort()).toEqual(perm);
    const checkOf = (r: Record<string, unknown>) => {
      const args = r.args as string[];
      const i = args.indexOf('check');
      return i >= 0 ? args[i + 1] : undefined;
    };
    for (const r of monitor.rules) {
      expect(CHECKS).toContain(checkOf(r));
      // Read-only: the checks never take --write.
      expect(r.args).not.toContain('--write');
    }
    expect(monitor.rules.filter((r) => r.type === 'temporary').map(checkOf)).toEqual(['stale']);
  });
});
