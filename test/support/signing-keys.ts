import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDecisionSigner, parseApprovalKeys, type DecisionSigner } from '../../src/common/decision-signing';

/** An Ed25519 key pair as PEM text. */
export function ed25519Pem(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/**
 * The keys of the signed-approval tests: alice (Ed25519), a bot (HMAC) and an inbox signing for alice and bob, which
 * the worker trusts, and mallory's key, which it does not. `files` holds the worker's key set and each signer's key file, for the CLI and the inbox.
 */
export function testSigningKeys() {
  const alice = ed25519Pem();
  const mallory = ed25519Pem();
  const inbox = ed25519Pem();
  const botSecret = randomBytes(32).toString('base64');
  const keySet = {
    keys: [
      { id: 'alice-1', approver: 'alice', publicKey: alice.publicKey },
      { id: 'bot-1', approver: 'bot', roles: ['ops'], secret: botSecret },
      // The inbox signs for the people it signs in.
      { id: 'inbox-1', approvers: ['alice', 'bob'], roles: ['finance'], publicKey: inbox.publicKey },
    ],
  };
  const folder = mkdtempSync(path.join(tmpdir(), 'signing-keys-'));
  const files = {
    keySet: path.join(folder, 'approval-keys.json'),
    alice: path.join(folder, 'alice.pem'),
    bot: path.join(folder, 'bot.key'),
  };
  writeFileSync(files.keySet, JSON.stringify(keySet));
  writeFileSync(files.alice, alice.privateKey);
  writeFileSync(files.bot, botSecret);
  const signers: Record<'alice' | 'bot' | 'mallory' | 'inbox', DecisionSigner> = {
    alice: createDecisionSigner('alice-1', alice.privateKey),
    bot: createDecisionSigner('bot-1', botSecret),
    mallory: createDecisionSigner('mallory-1', mallory.privateKey),
    inbox: createDecisionSigner('inbox-1', inbox.privateKey),
  };
  return { approvalKeys: parseApprovalKeys(keySet), signers, files };
}
