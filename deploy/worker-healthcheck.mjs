// The worker image's HEALTHCHECK: exits 0 when GET /healthz on WORKER_HEALTH_ADDRESS answers 2xx within 4 s, else 1.
// Plain Node (the slim image has no curl); reads the address the worker itself binds, so overriding it keeps working.
import http from 'node:http';
import process from 'node:process';

const DEFAULT_ADDRESS = '0.0.0.0:8080';
const TIMEOUT_MS = 4000;

const address = process.env.WORKER_HEALTH_ADDRESS?.trim() || DEFAULT_ADDRESS;
const colon = address.lastIndexOf(':');
const port = Number(address.slice(colon + 1));
const bound = colon === -1 ? '' : address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
// A wildcard bind (0.0.0.0, ::, or no host) is reachable on loopback.
const host = ['', '0.0.0.0', '::', '*'].includes(bound) ? '127.0.0.1' : bound;

const fail = (why) => {
  process.stderr.write(`healthcheck: ${why}\n`);
  process.exit(1);
};

if (!Number.isInteger(port) || port <= 0 || port > 65535) fail(`WORKER_HEALTH_ADDRESS "${address}" has no valid port`);

const request = http.get({ host, port, path: '/healthz', timeout: TIMEOUT_MS }, (response) => {
  response.resume();
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) process.exit(0);
  fail(`GET http://${host}:${port}/healthz answered ${status}`);
});
request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
request.on('error', (error) => fail(`GET http://${host}:${port}/healthz failed: ${error.message}`));
