// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.
import { verifyToken } from '../auth/tokens';

/** The parts of an HTTP request and response this middleware touches. */
export interface HttpRequest {
  headers: Record<string, string | undefined>;
  userId?: string;
}
export interface HttpResponse {
  status(code: number): { send(body: string): void };
}

/** Middleware that rejects requests without a valid bearer token (401) and attaches the caller's user ID. */
export const requireAuth = (secret: string) => (request: HttpRequest, response: HttpResponse, next: () => void): void => {
  const header = request.headers.authorization ?? '';
  const claims = header.startsWith('Bearer ') ? verifyToken(header.slice('Bearer '.length), secret) : null;
  if (!claims) {
    response.status(401).send('authentication required');
    return;
  }
  request.userId = claims.userId;
  next();
};
