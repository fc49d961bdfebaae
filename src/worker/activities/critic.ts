import { criticMessages, parseVerdict, type CritiqueInput, type CritiqueOutput } from '../../shared/critic';
import { completeText, type CompletionDependencies } from './completion';

/** Creates the `critique` activity: the critic's JSON verdict is parsed here, so the workflow gets data or a reason. */
export function createCritique(deps: CompletionDependencies): (input: CritiqueInput) => Promise<CritiqueOutput> {
  return async function critique(input: CritiqueInput): Promise<CritiqueOutput> {
    const { text, usage } = await completeText(deps, input.model, criticMessages(input), input.maxTokens);
    return { ...parseVerdict(text), usage };
  };
}
