export { startInbox, type Inbox, type InboxOptions } from './server';
export {
  Authenticator,
  InboxConfigError,
  parseTokens,
  readTokensFile,
  type IdentitySource,
  type InboxUser,
} from './auth';
