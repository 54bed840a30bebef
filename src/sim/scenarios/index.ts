import type { Simulator } from '../simulator.js';
import { SCENARIO_CATALOGUE, type ScenarioName } from './catalogue.js';
import { csiScenario } from './csi.js';
import { degraded } from './degraded.js';
import { EMPTY_NOTE, empty } from './empty.js';
import { healthy } from './healthy.js';
import { incident } from './incident.js';
import { outage } from './outage.js';
import { scale } from './scale.js';

interface ScenarioDef {
  name: string;
  description: string;
  build: (sim: Simulator) => Promise<void>;
  /** sysfs detail the scenario is materialised with (default full). */
  profile?: 'full' | 'lean';
  /** What the demo serves, for the screen (portals, lab credentials), when a user needs it. */
  note?: string;
}

const NOTES: Partial<Record<ScenarioName, string>> = { empty: EMPTY_NOTE };

const BUILDS: Record<ScenarioName, ScenarioDef['build']> = {
  incident,
  healthy,
  outage,
  degraded,
  empty,
  csi: csiScenario,
  scale,
};

/** Every `--demo` scenario, in the catalogue's order (the default, incident, first). */
export const SCENARIO_DEFS: readonly ScenarioDef[] = SCENARIO_CATALOGUE.map((c) => ({
  ...c,
  build: BUILDS[c.name],
  ...(NOTES[c.name] ? { note: NOTES[c.name] } : {}),
}));
