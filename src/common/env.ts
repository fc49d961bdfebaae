import { DEFAULT_TASK_QUEUE } from '../shared/messages';

/** Model used when neither the run's config nor OPENAI_MODEL names one. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
/** Where the official OpenAI API lives; used when only OPENAI_API_KEY is set. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Address of a local Temporal server, tried before starting the embedded one. */
export const LOCAL_TEMPORAL_ADDRESS = 'localhost:7233';

/** Everything this process reads from the environment, read in this one place. */
export interface RuntimeEnv {
  openaiApiKey: string | undefined;
  openaiBaseURL: string | undefined;
  openaiModel: string;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  taskQueue: string;
  /** TEMPORAL_TASK_QUEUE as set, or undefined: `run` joins a shared queue only when told to. */
  explicitTaskQueue: string | undefined;
  temporalCliPath: string | undefined;
  /** What the embedded dev server and the cluster are provisioned from (src/dev/). */
  provisioning: {
    /** TEMPORAL_DEV_DURABILITY as set (`fast` | `strict`; src/dev/tuning.ts checks it). */
    devDurability: string | undefined;
    /** TEMPORAL_CLI_DOWNLOAD_URL: where the SDK's download of the Temporal CLI asks first. */
    cliDownloadUrl: string | undefined;
    /** PG_BIN_DIR: the one folder PostgreSQL's programs are looked for in, when set. */
    pgBinDir: string | undefined;
  };
  /** `id:base64key[,…]`: payloads (and failure messages) are encrypted with the first key; all keys decrypt. */
  payloadEncryptionKeys: string | undefined;
  /** AGENT_IDENTITY: who the client and CLI say decided (the CLI falls back to the OS user name). */
  identity: string | undefined;
  /** AGENT_ROLES: comma-separated roles sent with decisions, for `approvers: ['role:<name>']`. */
  roles: string[];
  /** AGENT_SIGNING_KEY_ID: the key ID decisions are signed with (the worker maps it to its approver). */
  signingKeyId: string | undefined;
  /** AGENT_SIGNING_KEY_FILE: the signing key, a PEM Ed25519 private key or a base64 HMAC secret. */
  signingKeyFile: string | undefined;
  /** WORKER_APPROVAL_KEYS: the worker's verification keys (JSON), which `audit --verify` re-checks decisions with. */
  approvalKeysFile: string | undefined;
  /** The inbox's INBOX_* settings; its flags win over them, and the proxy secret has no flag (process listings). */
  inbox: {
    tokensFile: string | undefined;
    tokens: string | undefined;
    trustedHeader: string | undefined;
    rolesHeader: string | undefined;
    proxySecret: string | undefined;
    publicUrl: string | undefined;
  };
  /** The codec server's CODEC_SERVER_* settings, under its flags. */
  codecServer: { token: string | undefined; publicUrl: string | undefined };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** "a, b,,c" → ['a', 'b', 'c']. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * Reads every variable a client-side process (the CLI, the inbox, a service) and the dev provisioning use; empty
 * values count as unset. A worker reads its own WORKER_* settings on top of these (readWorkerEnv).
 */
export function readEnv(env: NodeJS.ProcessEnv = process.env): RuntimeEnv {
  return {
    openaiApiKey: nonEmpty(env.OPENAI_API_KEY),
    openaiBaseURL: nonEmpty(env.OPENAI_BASE_URL),
    openaiModel: nonEmpty(env.OPENAI_MODEL) ?? DEFAULT_OPENAI_MODEL,
    temporalAddress: nonEmpty(env.TEMPORAL_ADDRESS),
    temporalNamespace: nonEmpty(env.TEMPORAL_NAMESPACE) ?? 'default',
    taskQueue: nonEmpty(env.TEMPORAL_TASK_QUEUE) ?? DEFAULT_TASK_QUEUE,
    explicitTaskQueue: nonEmpty(env.TEMPORAL_TASK_QUEUE),
    temporalCliPath: nonEmpty(env.TEMPORAL_CLI_PATH),
    provisioning: {
      devDurability: nonEmpty(env.TEMPORAL_DEV_DURABILITY),
      cliDownloadUrl: nonEmpty(env.TEMPORAL_CLI_DOWNLOAD_URL),
      pgBinDir: nonEmpty(env.PG_BIN_DIR),
    },
    payloadEncryptionKeys: nonEmpty(env.PAYLOAD_ENCRYPTION_KEYS),
    identity: nonEmpty(env.AGENT_IDENTITY),
    roles: splitList(env.AGENT_ROLES),
    signingKeyId: nonEmpty(env.AGENT_SIGNING_KEY_ID),
    signingKeyFile: nonEmpty(env.AGENT_SIGNING_KEY_FILE),
    approvalKeysFile: nonEmpty(env.WORKER_APPROVAL_KEYS),
    inbox: {
      tokensFile: nonEmpty(env.INBOX_TOKENS_FILE),
      tokens: nonEmpty(env.INBOX_TOKENS),
      trustedHeader: nonEmpty(env.INBOX_TRUSTED_HEADER),
      rolesHeader: nonEmpty(env.INBOX_ROLES_HEADER),
      proxySecret: nonEmpty(env.INBOX_PROXY_SECRET),
      publicUrl: nonEmpty(env.INBOX_PUBLIC_URL),
    },
    codecServer: { token: nonEmpty(env.CODEC_SERVER_TOKEN), publicUrl: nonEmpty(env.CODEC_SERVER_PUBLIC_URL) },
  };
}

/** Whether a real model endpoint is configured (a key or a base URL). */
export function hasModelEndpoint(env: RuntimeEnv): boolean {
  return env.openaiApiKey !== undefined || env.openaiBaseURL !== undefined;
}
