// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.
import { capitalize } from '../utils/strings';

/** What other users see of someone. */
export interface Profile {
  displayName: string;
  bio: string;
}

/** Changes the name shown next to a user's comments, trimmed and limited to 40 characters. */
export function updateDisplayName(profile: Profile, displayName: string): Profile {
  return { ...profile, displayName: displayName.trim().slice(0, 40) };
}

/** Renders a user's name for greetings in emails, e.g. "ada lovelace" → "Ada Lovelace". */
export function greetingName(profile: Profile): string {
  return profile.displayName.split(' ').map(capitalize).join(' ');
}
