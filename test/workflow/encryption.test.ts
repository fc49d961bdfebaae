import { request as httpRequest } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, DefaultLogger, NativeConnection } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { AgentClient, AgentRunError } from '../../src/client';
import { encryptedDataConverter } from '../../src/common/data-converter';
import { MAX_CODEC_BODY_BYTES, startCodecServer } from '../../src/worker/codec/codec-server';
import { EncryptionCodec } from '../../src/common/encryption-codec';
import { startDevServer } from '../../src/dev/dev-server';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes';
import { startScriptedModel } from '../../src/testing/scripted-model';
import { createAgentWorker, createOpenAIClient, stockBundleOptions } from '../../src/worker';
import { freePort } from '../../src/testing/free-port';

const API_KEY = `sk-canary-${randomUUID()}`;

/**
 * Runs three agents on a fresh persisted dev server with or without the codec: a canary in the prompt, a canary in
 * a tool result (a file the agent reads) and a canary in a failure message. Returns every byte the server stored.
 */
async function runAndReadDatabase(
  dataConverter: DataConverter | undefined,
  canary: string,
  workflowBundle: { code: string } | { codePath: string },
) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dra-canary-'));
  const root = mkdtempSync(path.join(os.tmpdir(), 'dra-canary-root-'));
  writeFileSync(path.join(root, 'secret.txt'), `tool-result-${canary}`);
  const server = await startDevServer({
    dbFile: path.join(dir, 'temporal.db'),
    port: await freePort(),
    uiPort: await freePort(),
    searchAttributes: [...AGENT_SEARCH_ATTRIBUTES],
  });
  const model = await startScriptedModel();
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const histories: string[] = [];
  try {
    const worker = await createAgentWorker({
      connection: nativeConnection,
      taskQueue: 'canary',
      toolsRoot: root,
      openai: createOpenAIClient({ baseURL: model.baseURL, apiKey: API_KEY }),
      workflowBundle,
      ...(dataConverter ? { dataConverter } : {}),
    });
    const agents = new AgentClient({ client: new Client({ connection, dataConverter }), taskQueue: 'canary' });
    await worker.runUntil(async () => {
      model.script('reads', [
        {
          thought: 'The secret file holds what the user asks about.',
          toolCalls: [{ name: 'read_file', args: { path: 'secret.txt' } }],
        },
        { answer: 'I read it.' },
      ]);
      const read = await agents.start(`prompt-${canary}: what does secret.txt say?`, { model: 'reads' });
      expect((await read.result()).trace.steps[0]?.observation).toBe(`tool-result-${canary}`);
      model.script('fails', [{ status: 401, errorMessage: `failure-${canary}` }]);
      const failing = await agents.start('q', { model: 'fails' });
      const error = (await failing.result().catch((caught: unknown) => caught)) as AgentRunError;
      expect(error).toBeInstanceOf(AgentRunError);
      expect(error.message).toContain(`failure-${canary}`); // the client decodes it back
      for (const id of [read.workflowId, failing.workflowId])
        histories.push(JSON.stringify(await agents.client.workflow.getHandle(id).fetchHistory()));
    });
  } finally {
    await nativeConnection.close();
    await connection.close();
    await model.close();
    await server.stop();
  }
  const stored = readdirSync(dir)
    .map((file) => readFileSync(path.join(dir, file)).toString('latin1'))
    .join('\n');
  return { stored, histories: histories.join('\n') };
}

describe('payload encryption', () => {
  it(
    "with the codec, no canary (prompt, tool result, failure message) is in the server's database; without it they are",
    { timeout: 120_000 },
    async () => {
      const keys = [{ id: 'k1', key: randomBytes(32) }];
      // Tests run from sources; the client requires the compiled failure converter (npm test builds dist/ first).
      const failureConverter = path.resolve(__dirname, '../../dist/workflow/encoded-failure-converter.js');
      const dataConverter = encryptedDataConverter(keys, failureConverter);
      // A failure converter is part of the workflow bundle: a prebuilt bundle must be built with it (workers that
      // bundle at start, like the CLI's and the Docker image's, pick it up from the data converter).
      const { code } = await bundleWorkflowCode({
        ...stockBundleOptions(),
        failureConverterPath: failureConverter,
        logger: new DefaultLogger('WARN'),
      });
      const encrypted = await runAndReadDatabase(dataConverter, 'ENCRYPTED-CANARY-7f3a', { code });
      for (const where of ['prompt-', 'tool-result-', 'failure-'])
        expect(encrypted.stored).not.toContain(`${where}ENCRYPTED-CANARY-7f3a`);
      // Control: the same search finds them when the codec is off, so the assertion above can fail.
      const plain = await runAndReadDatabase(undefined, 'PLAIN-CANARY-9c1e', {
        codePath: inject('workflowBundlePath'),
      });
      for (const where of ['prompt-', 'tool-result-', 'failure-'])
        expect(plain.stored).toContain(`${where}PLAIN-CANARY-9c1e`);
      // The model API key never enters any history or the database, codec on or off.
      for (const run of [encrypted, plain]) {
        expect(run.histories).not.toContain(API_KEY);
        expect(run.stored).not.toContain(API_KEY);
      }
    },
  );

  it('the codec server decodes for the UI origin only, with a bearer token', async () => {
    const codec = new EncryptionCodec([{ id: 'k1', key: randomBytes(32) }]);
    const { url, server } = await startCodecServer({
      codec,
      origin: 'http://localhost:8233',
      token: 'secret-token',
      port: 0,
    });
    try {
      const [payload] = await codec.encode([
        { metadata: { encoding: new TextEncoder().encode('json/plain') }, data: new TextEncoder().encode('"hello"') },
      ]);
      const body = JSON.stringify({
        payloads: [
          {
            metadata: {
              encoding: Buffer.from(payload!.metadata!.encoding!).toString('base64'),
              'encryption-key-id': Buffer.from('k1').toString('base64'),
            },
            data: Buffer.from(payload!.data!).toString('base64'),
          },
        ],
      });
      const headers = { origin: 'http://localhost:8233', 'content-type': 'application/json', 'x-namespace': 'default' };
      const refused = await fetch(`${url}/decode`, { method: 'POST', headers, body });
      expect(refused.status).toBe(401);
      const decoded = await fetch(`${url}/decode`, {
        method: 'POST',
        headers: { ...headers, authorization: 'Bearer secret-token' },
        body,
      });
      expect(decoded.status).toBe(200);
      expect(decoded.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
      const json = (await decoded.json()) as { payloads: Array<{ data: string }> };
      expect(Buffer.from(json.payloads[0]?.data ?? '', 'base64').toString()).toBe('"hello"');
      const preflight = await fetch(`${url}/decode`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      // Red team N29: an oversized body is refused as it arrives instead of being held in memory whole.
      const huge = await fetch(`${url}/decode`, {
        method: 'POST',
        headers: { ...headers, authorization: 'Bearer secret-token' },
        body: 'x'.repeat(MAX_CODEC_BODY_BYTES + 1),
      }).catch((error: unknown) => error);
      if (huge instanceof Response) expect(huge.status).toBe(413);
      else expect(String(huge)).toMatch(/fetch failed|socket|reset/i); // the server closed the upload
      // A DNS-rebinding page reaches the port under its own name: it is refused whatever it carries.
      const port = new URL(url).port;
      const rebound = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${url}/decode`,
          {
            method: 'POST',
            headers: { ...headers, authorization: 'Bearer secret-token', host: `evil.example:${port}` },
          },
          (response) => resolve(response.statusCode ?? 0),
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(rebound).toBe(421);
      // Behind a DNS name or a TLS proxy, --public-url names the Host the UI sends.
      const proxied = await startCodecServer({
        codec,
        origin: 'http://localhost:8233',
        token: 'secret-token',
        port: 0,
        publicUrl: 'https://codec.example.com/',
      });
      try {
        expect(proxied.url).toBe('https://codec.example.com');
        const port = proxied.server.address() as { port: number };
        const status = await new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            `http://127.0.0.1:${port.port}/decode`,
            {
              method: 'POST',
              headers: { ...headers, authorization: 'Bearer secret-token', host: 'codec.example.com' },
            },
            (response) => resolve(response.statusCode ?? 0),
          );
          req.on('error', reject);
          req.end(body);
        });
        expect(status).toBe(200);
      } finally {
        proxied.server.close();
      }
    } finally {
      server.close();
    }
  });
});
