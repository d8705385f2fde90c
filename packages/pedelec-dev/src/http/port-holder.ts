/**
 * Who holds a port the Core could not listen on: another `pedelec-dev` (its inspector page answers
 * there: `npm start` left running, say) or some other program. Said in the refusal, because the two
 * call for different advice, and because a page's `bridge` names a port: moving to another one
 * without saying so would leave the page talking to the server that already runs.
 */

/** `pedelec-dev` when one answers at `host:port` (within a second), else `another program`. */
export async function portHolder(host: string, port: number): Promise<'pedelec-dev' | 'another program'> {
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  // A timer of our own, not AbortSignal.timeout's: that one does not keep the process alive, and a
  // process with nothing else to wait for would end mid-question (exit 0, without a word).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 1000);
  try {
    const response = await fetch(`http://${urlHost}:${port}/_pedelec/inspector`, { signal: controller.signal });
    return (await response.text()).includes('<title>pedelec-dev inspector</title>') ? 'pedelec-dev' : 'another program';
  } catch {
    return 'another program';
  } finally {
    clearTimeout(timer);
  }
}

/** What to say when `port` is taken: who holds it, how to free it, and what a page must then name. */
export function portInUseMessage(host: string, port: number, holder: 'pedelec-dev' | 'another program'): string {
  const held =
    holder === 'pedelec-dev'
      ? `Port ${port} on ${host} is held by another pedelec-dev (npm start, or pedelec-dev in another terminal): stop it with Ctrl+C there`
      : `Port ${port} on ${host} is already in use by another program: stop it`;
  return (
    `${held}, or choose another port with --port N (--port 0 picks a free one). ` +
    `A page then has to name that port in its bridge (ws://127.0.0.1:N/bridge), or it keeps talking to what runs on ${port}.`
  );
}
