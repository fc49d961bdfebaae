// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.
import { login, logout, type Account } from '../auth/session';
import { invoiceTotal, type Invoice } from '../billing/invoice';

/** A JSON reply: HTTP status and body. */
export interface Reply {
  status: number;
  body: unknown;
}

/** POST /login: authenticates the email and password in the body and sets the session cookie. */
export function handleLogin(accounts: readonly Account[], body: { email?: string; password?: string }): Reply {
  if (!body.email || !body.password) return { status: 400, body: { error: 'email and password are required' } };
  const sessionId = login(accounts, body.email, body.password);
  if (!sessionId) return { status: 401, body: { error: 'wrong email or password' } };
  return { status: 200, body: { sessionId } };
}

/** POST /logout: ends the caller's session. */
export function handleLogout(sessionId: string): Reply {
  logout(sessionId);
  return { status: 204, body: null };
}

/** GET /invoices/:id/total: the amount due on one invoice. */
export function handleInvoiceTotal(invoices: ReadonlyMap<string, Invoice>, id: string): Reply {
  const invoice = invoices.get(id);
  if (!invoice) return { status: 404, body: { error: `no invoice ${id}` } };
  return { status: 200, body: { id, total: invoiceTotal(invoice) } };
}
