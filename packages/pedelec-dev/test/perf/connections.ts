// Who holds a TCP connection to a local port, read from Linux's /proc: for a test that finds a server
// holding more than it should, to say which process is on the other end. Each established connection
// to the port, with the pid and command line of the process whose socket is the client's end (null
// when it is gone, or the process is not ours to read). Empty where /proc is not Linux's.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export type Connection = { clientPort: number; pid: number | null; command: string | null };

const ESTABLISHED = '01';

type Socket = { localPort: number; remotePort: number; state: string; inode: string };

function sockets(): Socket[] {
  const rows: Socket[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
      const fields = line.trim().split(/\s+/);
      const port = (address: string) => parseInt(address.split(':')[1], 16);
      rows.push({ localPort: port(fields[1]), remotePort: port(fields[2]), state: fields[3], inode: fields[9] });
    }
  }
  return rows;
}

/** The pid owning each socket inode, for the processes this one may read. */
function ownersByInode(): Map<string, number> {
  const owners = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) owners.set(inode, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return owners;
}

function commandOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return null;
  }
}

/** The established connections to `port`, each with the process at its client end. */
export function connectionsTo(port: number): Connection[] {
  const all = sockets();
  const owners = ownersByInode();
  return all
    .filter((s) => s.localPort === port && s.state === ESTABLISHED)
    .map(({ remotePort }) => {
      const client = all.find((s) => s.localPort === remotePort && s.remotePort === port);
      const pid = client ? (owners.get(client.inode) ?? null) : null;
      return { clientPort: remotePort, pid, command: pid === null ? null : commandOf(pid) };
    });
}
