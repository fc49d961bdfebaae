import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` on host:port (0 picks a free port) and returns its URL and a close that also ends open streams
 * (an SSE response would otherwise keep `close` waiting forever).
 */
export async function listen(
  server: Server,
  host: string,
  port: number,
  onClose: () => void = () => undefined,
): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        onClose();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The Host values a local server answers to: its loopback names at its port, the address it listens on (unless a
 * wildcard) and the public URL's. A page that rebinds its own name to this address still sends its own name as Host.
 */
export function allowedHosts(listenHost: string, port: number, publicUrl?: string): Set<string> {
  const names = [...LOOPBACK_NAMES];
  if (!['0.0.0.0', '::', ''].includes(listenHost))
    names.push(listenHost.includes(':') ? `[${listenHost}]` : listenHost);
  const hosts = new Set(names.map((name) => `${name.toLowerCase()}:${port}`));
  if (publicUrl) hosts.add(new URL(publicUrl).host.toLowerCase());
  return hosts;
}
