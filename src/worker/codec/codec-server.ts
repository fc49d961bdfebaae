import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { allowedHosts } from '../../common/http-listen';
import { PayloadCodecError } from '../../common/encryption-codec';
import { DurableAgentError } from '../../shared/errors';

/** Options of the codec server. */
export interface CodecServerOptions {
  codec: PayloadCodec;
  /** The only origin allowed by CORS: the Temporal UI, e.g. http://localhost:8233. */
  origin: string;
  /** When set, requests need `Authorization: Bearer <token>`. */
  token?: string;
  host?: string;
  port?: number;
  /** The URL the UI calls when it is not this machine's loopback (a DNS name, a TLS proxy): its Host is answered too. */
  publicUrl?: string;
}

const { Payloads } = temporal.api.common.v1;

function corsHeaders(request: IncomingMessage, origin: string): Record<string, string> {
  if (request.headers.origin !== origin) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'content-type, x-namespace, authorization',
    'access-control-allow-credentials': 'true',
    vary: 'origin',
  };
}

/**
 * Largest request body taken: a batch of the UI's payloads (Temporal caps each at 2 MB). A 300 MB post once took the
 * process to 1 GB and left it there.
 */
export const MAX_CODEC_BODY_BYTES = 8 * 1024 * 1024;

class BodyTooLarge extends DurableAgentError {
  override readonly name = 'BodyTooLarge';
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_CODEC_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether the request carries the bearer token (compared by digest, in constant time). */
function hasToken(request: IncomingMessage, token: string): boolean {
  return timingSafeEqual(digest(request.headers.authorization ?? ''), digest(`Bearer ${token}`));
}

/**
 * The Temporal UI's remote codec endpoint: POST /encode and /decode with `{"payloads": [...]}` (proto JSON, bytes as
 * base64), so people can read encrypted runs in the UI while the server only ever stores ciphertext.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<{ url: string; server: Server }> {
  // Filled once the port is known: a page that rebinds its own name to this address still sends that name as Host.
  const hosts = new Set<string>();
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const cors = corsHeaders(request, options.origin);
    // With CORS headers, so the UI shows the reason rather than an opaque CORS failure.
    const fail = (status: number, error: string, headers: Record<string, string> = {}) =>
      response
        .writeHead(status, { ...cors, 'content-type': 'application/json', ...headers })
        .end(JSON.stringify({ error }));
    if (!hosts.has((request.headers.host ?? '').toLowerCase())) {
      fail(421, `this codec server answers only ${[...hosts].join(', ')}: give the URL the UI calls with --public-url`);
      return;
    }
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors).end();
      return;
    }
    const route = request.url?.replace(/\/+$/, '') ?? '';
    if (request.method !== 'POST' || !['/encode', '/decode'].includes(route)) {
      response.writeHead(404, cors).end();
      return;
    }
    if (options.token && !hasToken(request, options.token)) {
      fail(401, 'a bearer token is required');
      return;
    }
    let payloads: Payload[];
    try {
      payloads = Payloads.fromObject(JSON.parse(await body(request)) as Record<string, unknown>).payloads ?? [];
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        fail(413, `a request may carry at most ${MAX_CODEC_BODY_BYTES} bytes`, { connection: 'close' });
        request.destroy();
        return;
      }
      fail(400, 'expected {"payloads": [...]}');
      return;
    }
    const result = route === '/encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
    const json = Payloads.toObject(Payloads.fromObject({ payloads: result }), { bytes: String });
    response.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(json));
  }
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) }));
    });
  });
  const wanted = { port: options.port ?? 8888, host: options.host ?? '127.0.0.1' };
  // A busy port is a one-line error (exit 2), not an unhandled 'error' event with a stack trace.
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(wanted.port, wanted.host, resolve),
  ).catch((error: NodeJS.ErrnoException) => {
    const why = error.code === 'EADDRINUSE' ? 'the address is in use' : error.message;
    throw new PayloadCodecError(`codec-server cannot listen on ${wanted.host}:${wanted.port}: ${why}`);
  });
  const { address, port } = server.address() as AddressInfo;
  for (const host of allowedHosts(wanted.host, port, options.publicUrl)) hosts.add(host);
  // A wildcard address is nothing a UI can call: name the loopback one (or the public URL) instead.
  const callable = ['0.0.0.0', '::'].includes(address) ? '127.0.0.1' : address.includes(':') ? `[${address}]` : address;
  return { url: options.publicUrl?.replace(/\/+$/, '') ?? `http://${callable}:${port}`, server };
}
