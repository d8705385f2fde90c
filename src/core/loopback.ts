/**
 * The one definition of "this machine" the kit and `pedelec-dev` share: where markup may point a
 * bridge, and which `Host` headers the development Core answers.
 */

/** `localhost`, any address of 127.0.0.0/8, and `::1` (with or without brackets), in any case. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name === '::1') return true;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return !!octets && octets.slice(1).every((octet) => Number(octet) <= 255);
}
