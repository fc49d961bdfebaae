import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { PayloadCodecError } from './encryption-codec';

/** Options of the codec server. */
export interface CodecServerOptions {
  codec: PayloadCodec;
  /** The only origin allowed by CORS: the Temporal UI, e.g. http://localhost:8233. */
  origin: string;
  /** When set, requests need `Authorization: Bearer <token>`. */
  token?: string;
  host?: string;
  port?: number;
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

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The Temporal UI's remote codec endpoint: POST /encode and /decode with `{"payloads": [...]}` (proto JSON, bytes as
 * base64), so people can read encrypted runs in the UI while the server only ever stores ciphertext.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<{ url: string; server: Server }> {
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const cors = corsHeaders(request, options.origin);
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors).end();
      return;
    }
    const route = request.url?.replace(/\/+$/, '') ?? '';
    if (request.method !== 'POST' || !['/encode', '/decode'].includes(route)) {
      response.writeHead(404, cors).end();
      return;
    }
    if (options.token && request.headers.authorization !== `Bearer ${options.token}`) {
      response
        .writeHead(401, { ...cors, 'content-type': 'application/json' })
        .end('{"error":"a bearer token is required"}');
      return;
    }
    let payloads: Payload[];
    try {
      payloads = Payloads.fromObject(JSON.parse(await body(request)) as Record<string, unknown>).payloads ?? [];
    } catch {
      response
        .writeHead(400, { ...cors, 'content-type': 'application/json' })
        .end('{"error":"expected {\\"payloads\\": [...]}"}');
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
  return { url: `http://${address}:${port}`, server };
}
