import { setFlagsFromString } from 'node:v8';

/**
 * Stops V8 growing the young generation past the size it has now (`--semi-space-growth-factor=1`:
 * a growth step multiplies the semispaces by 1). The console calls it once its first frame is up,
 * just before the full read. That read is synchronous and its objects survive scavenge after
 * scavenge, so V8 doubled the semispaces up to their 16 MB cap while it ran (32 MB resident for the
 * young generation alone), and that was the console's peak RSS; the objects that survive are
 * promoted to the old generation whatever the young generation's size. Measured at 1,000 sessions
 * × 4 LUNs, the built console in a pty (bench/README.md, console): peak RSS ~154 → ~137 MB with the
 * young generation held at the 8 MB semispaces start-up had grown it to, CPU of the whole run
 * unchanged within the noise. V8 reads the factor at each growth step, so setting it after start
 * works; `--max-semi-space-size` is read once, when the heap is made, and would need a restart.
 * Never throws: without it the console only keeps more memory.
 */
export function holdYoungGeneration(): void {
  try {
    setFlagsFromString('--semi-space-growth-factor=1');
  } catch {
    // A Node whose V8 rejects the flag: the default sizing.
  }
}
