/** iscsiadm's command line (usr/iscsiadm.c long_options), as far as the simulator needs it. */
export interface IscsiadmArgs {
  mode?: string;
  type?: string;
  portal?: string;
  target?: string;
  iface?: string;
  ops: string[];
  name?: string;
  value?: string;
  print?: number;
  sid?: number;
  login: boolean;
  logout: boolean;
  loginall?: string;
  logoutall?: string;
  rescan: boolean;
  discover: boolean;
  show: boolean;
  version: boolean;
  /** A token iscsiadm would reject (exit 7, "invalid option"). */
  invalid?: string;
}

const WITH_VALUE: Record<string, keyof IscsiadmArgs> = {
  '-m': 'mode',
  '--mode': 'mode',
  '-t': 'type',
  '--type': 'type',
  '-p': 'portal',
  '--portal': 'portal',
  '-T': 'target',
  '--targetname': 'target',
  '-I': 'iface',
  '--interface': 'iface',
  '-n': 'name',
  '--name': 'name',
  '-v': 'value',
  '--value': 'value',
};

export function parseIscsiadmArgs(argv: readonly string[]): IscsiadmArgs {
  const a: IscsiadmArgs = {
    ops: [],
    login: false,
    logout: false,
    rescan: false,
    discover: false,
    show: false,
    version: false,
  };
  const set = a as unknown as Record<string, unknown>;
  for (let i = 0; i < argv.length; i++) {
    let tok = argv[i]!;
    let inline: string | undefined;
    const eq = tok.indexOf('=');
    if (tok.startsWith('--') && eq > 0) {
      inline = tok.slice(eq + 1);
      tok = tok.slice(0, eq);
    }
    const next = () => inline ?? argv[++i] ?? '';
    const key = WITH_VALUE[tok];
    if (key) {
      set[key] = next();
      continue;
    }
    switch (tok) {
      case '-o':
      case '--op':
        a.ops.push(next());
        break;
      case '-P':
      case '--print':
        a.print = Number(next());
        break;
      case '-r':
      case '--sid': {
        const v = next();
        a.sid = Number(v.replace(/^.*session/, ''));
        break;
      }
      case '-l':
      case '--login':
        a.login = true;
        break;
      case '-u':
      case '--logout':
        a.logout = true;
        break;
      case '-L':
      case '--loginall':
        a.loginall = next();
        break;
      case '-U':
      case '--logoutall':
        a.logoutall = next();
        break;
      case '-R':
      case '--rescan':
        a.rescan = true;
        break;
      case '--discover':
        a.discover = true;
        break;
      case '-S':
      case '--show':
        a.show = true;
        break;
      case '-V':
      case '--version':
        a.version = true;
        break;
      default:
        a.invalid ??= tok;
    }
  }
  return a;
}
