import { writeFileSync } from 'node:fs';
import type { Figure, MeasurementOutput } from './figure.js';

/**
 * Collects one measurement's figures and writes them where bench/run.mjs told the child to
 * (BENCH_OUT), or prints them when a measurement is run by hand. Progress goes to stderr.
 */
export class Output {
  private readonly figures: Figure[] = [];
  private readonly notMeasured: string[] = [];

  constructor(private readonly measurement: string) {}

  add(f: Figure): void {
    this.figures.push(f);
    const mark = f.pass === undefined ? '' : f.pass ? ' ✓' : ' ✗';
    log(`${f.label}: ${f.value ?? '—'} ${f.unit}${mark}`);
  }

  skip(reason: string): void {
    this.notMeasured.push(reason);
    log(`not measured: ${reason}`);
  }

  write(): void {
    const out: MeasurementOutput = {
      measurement: this.measurement,
      figures: this.figures,
      notMeasured: this.notMeasured,
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
