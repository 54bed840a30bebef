/**
 * One measured figure with its target: the unit every measurement file reports, and what
 * bench/run.mjs prints and writes to bench/results.json (README.md's table takes its rows from
 * bench/lib/table-rows.ts and their values from there).
 */
export interface Target {
  /** Comparison the value must satisfy. */
  op: '<=' | '<';
  value: number;
}

export interface Figure {
  /** Stable id for results.json consumers, e.g. `snapshot.1000.ratio`. */
  id: string;
  /** Section of the results (bench/README.md): snapshot, idle, latency, console, peers. */
  section: string;
  label: string;
  /** undefined when not measured (then `note` says why). */
  value?: number;
  unit: string;
  target?: Target;
  /** true/false when there is a target and a value; undefined otherwise. */
  pass?: boolean;
  /** How it was measured, or why it was not. */
  note?: string;
  /** Extra numbers (min/max/runs, counts) kept in results.json only. */
  detail?: object;
}

/** What a measurement child writes to the file named by BENCH_OUT. */
export interface MeasurementOutput {
  measurement: string;
  figures: Figure[];
  /** Things the measurement could not do (missing module, missing tool), with the reason. */
  notMeasured: string[];
  /** Extra material kept in results.json (profile summaries of missed targets). */
  extra?: Record<string, unknown>;
}

/** Builds a figure and sets `pass` from its target. */
export function figure(f: Omit<Figure, 'pass'>): Figure {
  const pass =
    f.value === undefined || f.target === undefined || !Number.isFinite(f.value)
      ? undefined
      : f.target.op === '<='
        ? f.value <= f.target.value
        : f.value < f.target.value;
  return pass === undefined ? { ...f } : { ...f, pass };
}
