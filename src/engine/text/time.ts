/**
 * How a time is shown to a person, one format everywhere (banner, detail, journal, `doctor`,
 * `watch`, `status`): a clock time always says its zone (`15:28 UTC`: nodes and incident tickets
 * agree on UTC), a duration is relative to a clock the caller passes (`14 min`), and a down time
 * says whether the console saw the failure or only found it down (`first seen down`): the kernel
 * records no failure time (src/engine/snapshot/outages.ts).
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()` (`2026-12-03T15:28:29.042Z`), built from the UTC fields. V8's own
 * toISOString asks ICU for the host's time zone on its first call (it goes through the local-time
 * path), which loads ICU's zone data and the host's /etc/localtime: ~2 ms of CPU in a one-shot
 * `status --json` that needs no zone at all (bench/README.md "Start-up"). Years outside 0–9999 and
 * a time that is not one (RangeError) are left to toISOString itself.
 */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  if (!(y >= 0 && y <= 9999)) return d.toISOString();
  const milli = d.getUTCMilliseconds();
  return `${String(y).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** `40 s`, `14 min`, `2 h 05 min`, `3 d 4 h`: how long, as a person says it (floor; 0 s for negatives). */
export function durationWords(ms: number): string {
  const t = Number.isFinite(ms) ? Math.max(0, ms) : 0;
  if (t < MIN) return `${Math.floor(t / 1000)} s`;
  if (t < HOUR) return `${Math.floor(t / MIN)} min`;
  if (t < DAY)
    return `${Math.floor(t / HOUR)} h ${String(Math.floor((t % HOUR) / MIN)).padStart(2, '0')} min`;
  return `${Math.floor(t / DAY)} d ${Math.floor((t % DAY) / HOUR)} h`;
}

/**
 * `15:28 UTC`, with seconds when asked (`15:28:29 UTC`), and the date in front when the day is not
 * `nowMs`'s (UTC): `2026-12-03 15:28 UTC`; no `nowMs`, no date (a time of this very session).
 * `?` for a time that does not parse.
 */
export function utcClock(ms: number, nowMs: number | undefined, seconds = false): string {
  if (!Number.isFinite(ms)) return '?';
  const iso = isoTime(ms);
  const clock = iso.slice(11, seconds ? 19 : 16);
  const otherDay =
    nowMs !== undefined && Number.isFinite(nowMs) && isoTime(nowMs).slice(0, 10) !== iso.slice(0, 10);
  return `${otherDay ? `${iso.slice(0, 10)} ` : ''}${clock} UTC`;
}

/** `2026-12-03 15:28:29 UTC`: a record that outlives the session (the journal). */
export function utcStamp(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  return `${isoTime(ms).slice(0, 19).replace('T', ' ')} UTC`;
}

/** `12:01:03 UTC` of an ISO time, to the second (a probe, a step): for a moment seen this very read. */
export function clockTime(iso: string): string {
  return utcClock(Date.parse(iso), undefined, true);
}

/**
 * How long something has been down: `down 14 min, since 15:28 UTC` when the console saw it go
 * down (a read before found it up), else `first seen down 14 min ago, at 15:28 UTC` (it was down
 * already when the console first read it; the failure is older).
 */
export function downWords(sinceIso: string, nowMs: number, observed: boolean): string {
  const at = Date.parse(sinceIso);
  if (!Number.isFinite(at)) return 'down (since unknown)';
  const clock = utcClock(at, nowMs);
  // A single read (`status`, `doctor`) sees it down at the moment it reads: no age to tell.
  if (nowMs - at < 1000) return observed ? `down since ${clock}` : `first seen down just now, at ${clock}`;
  const age = durationWords(nowMs - at);
  return observed ? `down ${age}, since ${clock}` : `first seen down ${age} ago, at ${clock}`;
}

/**
 * The most cells downWords takes for a time under a thousand days (`first seen down 23 h 59 min
 * ago, at 2026-12-03 15:28 UTC`): a layout that keeps this room lays out the same as time passes.
 */
export function downWordsRoom(observed: boolean): number {
  // 23 h 59 min is the widest duration, and across midnight the clock gains its date.
  const since = Date.UTC(2026, 11, 3, 12, 0);
  return downWords(isoTime(since), since + 23 * HOUR + 59 * MIN, observed).length;
}
