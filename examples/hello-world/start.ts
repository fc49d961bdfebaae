// Starts a run and waits for its answer. The run is a Temporal workflow: it outlives this process and any worker.
import { AgentClient } from 'durable-react-agent';

const agents = await AgentClient.connect(); // TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE
const run = await agents.start('How many words are in "the quick brown fox jumps"?', { tools: ['word_count'] });
console.log(`started ${run.workflowId}`);
const result = await run.result();
console.log(result.finalAnswer);
await agents.close();
