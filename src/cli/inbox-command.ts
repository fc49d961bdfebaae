import { AgentClient } from '../client/agent-client';
import { readEnv, type RuntimeEnv } from '../common/env';
import { signerFromEnv } from '../common/decision-signing';
import { InboxConfigError, parseTokens, readTokensFile, startInbox, type IdentitySource } from '../inbox';
import { parseCommandArgs, portFlag, UsageError } from './args';
import { connectServer, type Cleanup } from './run-command';

type Say = (line: string) => void;

function identities(
  values: {
    tokens?: string | undefined;
    'trusted-header'?: string | undefined;
    'roles-header'?: string | undefined;
  },
  env: RuntimeEnv['inbox'],
): IdentitySource {
  const file = values.tokens ?? env.tokensFile;
  const tokens = file ? readTokensFile(file) : env.tokens ? parseTokens(env.tokens, 'INBOX_TOKENS') : {};
  const trustedHeader = values['trusted-header'] ?? env.trustedHeader;
  const rolesHeader = values['roles-header'] ?? env.rolesHeader;
  // From the environment only: a flag's value would show in every process listing.
  const proxySecret = env.proxySecret;
  return {
    tokens,
    ...(trustedHeader ? { trustedHeader } : {}),
    ...(rolesHeader ? { rolesHeader } : {}),
    ...(proxySecret ? { proxySecret } : {}),
  };
}

/**
 * `durable-react-agent inbox`: the approval inbox on http://127.0.0.1:8788 (or --host/--port), against --address,
 * TEMPORAL_ADDRESS, a server on localhost:7233, or the embedded dev server. Payloads are decoded with the same
 * PAYLOAD_ENCRYPTION_KEYS as the workers.
 */
export async function inboxCommand(argv: string[], say: Say, untilInterrupted: () => Promise<void>): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      port: { type: 'string', default: '8788' },
      host: { type: 'string', default: '127.0.0.1' },
      address: { type: 'string' },
      tokens: { type: 'string' },
      'trusted-header': { type: 'string' },
      'roles-header': { type: 'string' },
      'public-url': { type: 'string' },
    },
    { positionals: false },
  );
  const port = portFlag('port', values.port);
  const env = readEnv();
  const publicUrl = values['public-url'] ?? env.inbox.publicUrl;
  if (publicUrl !== undefined && !URL.canParse(publicUrl))
    throw new UsageError(
      `--public-url expects the URL people open, like https://inbox.example.com, got "${publicUrl}"`,
    );
  let source: IdentitySource;
  try {
    source = identities(values, env.inbox);
  } catch (error) {
    if (error instanceof InboxConfigError) throw new UsageError(error.message);
    throw error;
  }
  // A bad key is a SigningKeyError: one line and exit 2, as main() reports it.
  const signer = signerFromEnv(env);
  const cleanups: Cleanup[] = [];
  try {
    const server = values.address ? { address: values.address } : await connectServer(env, say, cleanups);
    const agents = await AgentClient.connect({ address: server.address });
    cleanups.push(() => agents.close());
    const { client } = agents;
    let inbox;
    try {
      inbox = await startInbox({
        client,
        identities: source,
        host: values.host,
        port,
        log: say,
        ...(publicUrl ? { publicUrl } : {}),
        ...(signer ? { signer } : {}),
      });
    } catch (error) {
      if (error instanceof InboxConfigError) throw new UsageError(error.message);
      throw error;
    }
    cleanups.push(() => inbox.close());
    const people = Object.keys(source.tokens).length;
    say(
      `Inbox on ${inbox.url} (Temporal ${server.address}; ${people} token${people === 1 ? '' : 's'}${source.trustedHeader ? `, trusted header ${source.trustedHeader}` : ''}). Ctrl-C stops it.`,
    );
    if (['0.0.0.0', '::'].includes(values.host) && !publicUrl)
      say(`note: on ${values.host} the inbox answers only to its loopback names; give --public-url for any other`);
    await untilInterrupted();
    return 0;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}
