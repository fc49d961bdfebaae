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
): Promise<{ url: string; close(): Promise<void> }> {
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
