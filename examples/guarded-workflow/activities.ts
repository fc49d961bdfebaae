/**
 * The example's own activity: a policy check a hook awaits. Real ones ask a policy service (OPA, an entitlements
 * API); as an activity it gets Temporal's timeout and retries, and its answer is recorded in the run's history, so a
 * replay asks nothing again.
 */
export async function checkPolicy(call: { tool: string; args: unknown }): Promise<{ allowed: boolean; why?: string }> {
  const text = JSON.stringify(call.args);
  await Promise.resolve(); // stands for the request to the policy service
  return /private/.test(text) ? { allowed: false, why: 'policy: private notes are off limits' } : { allowed: true };
}
