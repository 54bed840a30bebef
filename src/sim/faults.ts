/** Which commands a scripted fault applies to: a substring of the argv line, or a predicate. */
type CommandMatcher = string | ((argv: readonly string[]) => boolean);

interface ScriptedResult {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

function matches(m: CommandMatcher, argv: readonly string[]): boolean {
  return typeof m === 'string' ? argv.join(' ').includes(m) : m(argv);
}

/**
 * Deterministic, scriptable faults. Each is explicit state: nothing random, so a test that sets
 * one knows exactly which call fails and how.
 */
export class Faults {
  private readonly hangs: CommandMatcher[] = [];
  private readonly slows: { m: CommandMatcher; ms: number }[] = [];
  private readonly results: { m: CommandMatcher; r: ScriptedResult; times: number }[] = [];
  /** iscsid not running: iscsiadm calls that need it exit 20. */
  iscsidDown = false;
  /** Another iscsiadm holds the node DB lock: DB writes exit 6. */
  dbLocked = false;
  /** iscsid reports a different version than iscsiadm (a half-upgraded node). */
  iscsidVersion = '2.1.8';
  /** Logins to these targets (IQN) or portals (`addr:port`) fail with this iscsiadm code. */
  readonly loginFailures = new Map<string, 8 | 24>();
  /** Sessions that vanish (logged out by "someone else") the next time their sysfs is read. */
  readonly vanishOnRead = new Set<number>();
  /**
   * The disk holding these paths fills up: writes to files under `under` store `freeBytes` more
   * bytes in all, then write(2) fails with ENOSPC — mid-file, as a real full disk does. Applied at
   * the Host's one write(2) (FsHost.writeBytes), so the code a node runs meets it.
   */
  diskFull: { under: string; freeBytes: number } | undefined = undefined;

  /** How many of `len` bytes a write to `path` may store now (diskFull); 0 means ENOSPC. */
  writeRoom(path: string, len: number): number {
    const d = this.diskFull;
    if (d === undefined || !path.startsWith(d.under)) return len;
    const n = Math.min(len, d.freeBytes);
    d.freeBytes -= n;
    return n;
  }

  /** The command never returns on its own (killed by its timeout or a cancel). */
  hang(m: CommandMatcher): void {
    this.hangs.push(m);
  }

  /** The command takes this long (simulated time) before answering normally. */
  slow(m: CommandMatcher, ms: number): void {
    this.slows.push({ m, ms });
  }

  /** The command answers this instead of running (`times` calls, default every call). */
  respond(m: CommandMatcher, r: ScriptedResult, times = Number.POSITIVE_INFINITY): void {
    this.results.push({ m, r, times });
  }

  /** Removes every command fault (hang, slow, respond). */
  clearCommands(): void {
    this.hangs.length = 0;
    this.slows.length = 0;
    this.results.length = 0;
  }

  isHung(argv: readonly string[]): boolean {
    return this.hangs.some((m) => matches(m, argv));
  }

  delayFor(argv: readonly string[]): number {
    return this.slows.filter((s) => matches(s.m, argv)).reduce((a, s) => a + s.ms, 0);
  }

  scripted(argv: readonly string[]): ScriptedResult | undefined {
    const hit = this.results.find((x) => x.times > 0 && matches(x.m, argv));
    if (!hit) return undefined;
    hit.times--;
    return hit.r;
  }
}
