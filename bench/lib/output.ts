import { writeFileSync } from 'node:fs';
import type { Figure, MeasurementOutput } from './figure.js';

/**
 * Collects one measurement's figures and writes them where bench/run.mjs told the child to
 * (BENCH_OUT), or prints them when a measurement is run by hand. Progress goes to stderr.
 */
export class Output {
  private readonly figureList: Figure[] = [];
  private readonly notMeasured: string[] = [];
  private readonly extra: Record<string, unknown> = {};

  constructor(private readonly measurement: string) {}

  add(f: Figure): void {
    this.figureList.push(f);
    // Written as we go: a measurement killed at its time limit still leaves what it measured.
    if (process.env.BENCH_OUT) this.write();
    const mark = f.pass === undefined ? '' : f.pass ? ' ✓' : ' ✗';
    log(`${f.label}: ${f.value ?? '—'} ${f.unit}${mark}`);
  }

  skip(reason: string): void {
    this.notMeasured.push(reason);
    if (process.env.BENCH_OUT) this.write();
    log(`not measured: ${reason}`);
  }

  /** The figures added so far. */
  figures(): readonly Figure[] {
    return this.figureList;
  }

  /** Keeps extra material (e.g. profile summaries) in results.json under `extra`. */
  attach(key: string, value: unknown): void {
    this.extra[key] = value;
  }

  write(): void {
    const out: MeasurementOutput = {
      measurement: this.measurement,
      figures: this.figureList,
      notMeasured: this.notMeasured,
      ...(Object.keys(this.extra).length > 0 ? { extra: this.extra } : {}),
    };
    const file = process.env.BENCH_OUT;
    if (file) writeFileSync(file, JSON.stringify(out, null, 2));
    else process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  }
}

/** Progress line on stderr (stdout stays clean for a by-hand run's JSON). */
export function log(line: string): void {
  process.stderr.write(`  ${line}\n`);
}
