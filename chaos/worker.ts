/**
 * A chaos worker process: the agent worker with the built-in tools plus `ledger_write` and `ledger_pay`, configured by env, printing
 * `ready` on stdout once it polls. The driver SIGKILLs and restarts these. Run it with `node --import tsx`.
 *
 *   TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE, OPENAI_BASE_URL   as for `durable-react-agent worker`
 *   CHAOS_LEDGER_URL          the driver's ledger service
 *   CHAOS_MODEL_TIMEOUT_MS    the openai client's timeout (short, so scripted hangs are cut off and retried)
 *   CHAOS_WORKFLOW_BUNDLE     a prebuilt workflow bundle (skips bundling at every restart)
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { readEnv } from '../src/common/env';
import { createBuiltinTools } from '../src/worker/tools/builtin';
import { ToolRegistry } from '../src/worker/tools/registry';
import { createAgentWorker, createOpenAIClient } from '../src/worker';
import { createLedgerTool, createPaymentTool } from './ledger-tool';
import { READY_LINE } from './protocol';

const chaosEnvSchema = z.object({
  CHAOS_LEDGER_URL: z.url(),
  CHAOS_MODEL_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  CHAOS_WORKFLOW_BUNDLE: z.string().min(1).optional(),
});

async function main(): Promise<void> {
  const env = readEnv();
  const chaos = chaosEnvSchema.parse(process.env);
  if (!env.temporalAddress) throw new Error('TEMPORAL_ADDRESS is required');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: env.temporalAddress });
  try {
    const worker = await createAgentWorker({
      connection,
      env,
      registry: new ToolRegistry([
        ...createBuiltinTools({ root: process.cwd() }),
        createLedgerTool(chaos.CHAOS_LEDGER_URL),
        createPaymentTool(chaos.CHAOS_LEDGER_URL),
      ]),
      openai: createOpenAIClient({ baseURL: env.openaiBaseURL, timeoutMs: chaos.CHAOS_MODEL_TIMEOUT_MS }),
      ...(chaos.CHAOS_WORKFLOW_BUNDLE ? { workflowBundle: { codePath: chaos.CHAOS_WORKFLOW_BUNDLE } } : {}),
      workerOptions: { shutdownGraceTime: '2s' },
    });
    const running = worker.run();
    while (worker.getState() !== 'RUNNING' && worker.getState() !== 'FAILED')
      await new Promise((resolve) => setTimeout(resolve, 20));
    process.stdout.write(`${READY_LINE}\n`);
    await running;
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
