export { startInbox, type Inbox, type InboxOptions } from './server';
export {
  Authenticator,
  InboxConfigError,
  parseTokens,
  readTokensFile,
  type IdentitySource,
  type InboxUser,
} from './auth';
// Signing decisions is the human side's: the inbox signs with it, and so can a service's AgentClient (`signer`).
export {
  createDecisionSigner,
  readDecisionSigner,
  signDecision,
  SigningKeyError,
  type DecisionSigner,
  type SigningTarget,
} from '../common/decision-signing';
