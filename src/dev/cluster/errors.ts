import { DurableAgentError } from '../../shared/errors';

/** Thrown when the cluster cannot be set up or started; the message says what failed and, where it can, how to fix it. */
export class ClusterSetupError extends DurableAgentError {
  override readonly name = 'ClusterSetupError';
}
