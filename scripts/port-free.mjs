// `npm start`, first: is the demo's port free? Building takes a while, and a second `npm start` (or a
// pedelec-dev from the README's quick start) on the same port would only fail once the build is done.
// Says who holds it and what to do, through pedelec-dev's own words when it has been built before.
import net from 'node:net';

// pedelec-dev's default port (DEFAULT_PORT), where `npm start` serves the demo; a test names another.
const PORT = Number(process.argv[2] ?? 7717);
const HOST = '127.0.0.1';

const free = await new Promise((resolve) => {
  const probe = net.createServer();
  probe.once('error', () => resolve(false));
  probe.listen(PORT, HOST, () => probe.close(() => resolve(true)));
});
if (!free) {
  const built = await import('../packages/pedelec-dev/dist/http/port-holder.js').catch(() => null);
  const message = built
    ? built.portInUseMessage(HOST, PORT, await built.portHolder(HOST, PORT))
    : `Port ${PORT} on ${HOST} is already in use (npm start in another terminal?): stop what runs there first.`;
  console.error(`npm start: ${message}`);
  process.exit(1);
}
