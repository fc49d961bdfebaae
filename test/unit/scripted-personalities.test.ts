import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTextReply } from '../../src/shared/protocol/text-format';
import { PERSONALITIES, type Personality } from '../../src/testing/personalities';
import { startScriptedModel, type ScriptedModelServer, type ScriptedTurn } from '../../src/testing/scripted-model';

/*
 * The scripted model's personalities: one script, replied in the shapes real servers use. These tests read the wire
 * (what a reply reader gets), so they hold whatever the agent's reader makes of it.
 */

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModel();
});
afterAll(async () => {
  await server.close();
});

const THOUGHT = 'The sum must be exact, so I use the calculator.';
const CALL: ScriptedTurn = { thought: THOUGHT, toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }] };
const ANSWER: ScriptedTurn = { answer: 'The sum is 4.' };
const NATIVE = { tools: [{ type: 'function', function: { name: 'calculator' } }] };
const TEXT = { stop: ['\nObservation:'] };
const TAGS = { thought: 'Thought:', action: 'Action:', observation: 'Observation:' };

interface Message {
  content: string | null;
  reasoning_content?: string;
  tool_calls?: Array<{ function: { name: string; arguments: string } }>;
}

let counter = 0;
/** Scripts a fresh model with `turns` as `personality` and returns a function that sends its next request. */
function model(turns: ScriptedTurn[], personality?: Personality, seed?: number) {
  const name = `personality-${counter++}`;
  server.script(name, turns, { ...(personality ? { personality } : {}), ...(seed !== undefined ? { seed } : {}) });
  return (extra: object = NATIVE, stream = false) =>
    fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: name, messages: [{ role: 'user', content: 'q' }], stream, ...extra }),
    });
}

async function message(response: Promise<Response>): Promise<Message> {
  const body = (await (await response).json()) as { choices: Array<{ message: Message }> };
  return body.choices[0]!.message;
}

/** A stream's deltas, in order. */
async function deltas(response: Promise<Response>): Promise<Array<Record<string, unknown>>> {
  const text = await (await response).text();
  return text
    .split('\n\n')
    .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
    .flatMap((event) => {
      const chunk = JSON.parse(event.slice(6)) as { choices: Array<{ delta: Record<string, unknown> }> };
      return chunk.choices.map((choice) => choice.delta);
    });
}

const joined = (all: Array<Record<string, unknown>>, field: string) =>
  all.flatMap((delta) => (typeof delta[field] === 'string' ? [delta[field]] : [])).join('');

describe('scripted model personalities (native tool calling)', () => {
  it('plain, the default: the thought is the text beside the calls, and there is no reasoning field', async () => {
    const next = model([CALL, ANSWER]);
    const call = await message(next());
    expect(call.content).toBe(THOUGHT);
    expect(call.tool_calls?.[0]?.function).toEqual({ name: 'calculator', arguments: '{"expression":"2+2"}' });
    expect('reasoning_content' in call).toBe(false);
    expect(await message(next())).toEqual({ role: 'assistant', content: 'The sum is 4.' });
  });

  it('no-text-calls: content is null beside tool calls, in bodies and streams; an answer is plain content', async () => {
    const next = model([CALL, CALL, ANSWER], 'no-text-calls');
    const call = await message(next());
    expect(call.content).toBeNull();
    expect(call.tool_calls).toHaveLength(1);
    const streamed = await deltas(next(NATIVE, true));
    expect(streamed[0]).toEqual({ role: 'assistant', content: null });
    expect(joined(streamed, 'content')).toBe('');
    expect(streamed.some((delta) => Array.isArray(delta.tool_calls))).toBe(true);
    expect((await message(next())).content).toBe('The sum is 4.');
  });

  it('reasoning-field: the thought goes to reasoning_content (streamed before any text); an answer gets reasoning too', async () => {
    const next = model(
      [CALL, ANSWER, { thought: 'Four is the sum.', answer: 'It is 4.', streamChunks: 3 }],
      'reasoning-field',
    );
    const call = await message(next());
    expect(call).toMatchObject({ content: null, reasoning_content: THOUGHT });
    const answer = await message(next());
    expect(answer.content).toBe('The sum is 4.');
    // No thought scripted: a sentence made from the answer, the same every time.
    expect(answer.reasoning_content).toBe('What I have found is enough to answer, so I answer: The sum is 4.');
    const streamed = await deltas(next(NATIVE, true));
    expect(joined(streamed, 'reasoning_content')).toBe('Four is the sum.');
    expect(joined(streamed, 'content')).toBe('It is 4.');
    const lastReasoning = streamed.map((delta) => 'reasoning_content' in delta).lastIndexOf(true);
    const firstText = streamed.findIndex((delta) => typeof delta.content === 'string');
    expect(lastReasoning).toBeLessThan(firstText);
  });

  it('think-tags: the thought opens the content inside <think>, followed by nothing or by the answer', async () => {
    const next = model([CALL, { thought: 'Four it is.', answer: 'The sum is 4.' }], 'think-tags');
    const call = await message(next());
    expect(call.content).toBe(`<think>\n${THOUGHT}\n</think>\n\n`);
    expect(call.tool_calls).toHaveLength(1);
    expect((await message(next())).content).toBe('<think>\nFour it is.\n</think>\n\nThe sum is 4.');
  });

  it('a turn scripted as content is sent as written; the reasoning personalities still add its thought', async () => {
    const turn: ScriptedTurn = { content: 'Exactly this.', thought: 'Why.' };
    for (const personality of PERSONALITIES) {
      const sent = await message(model([turn], personality)());
      const expected =
        personality === 'think-tags'
          ? { content: '<think>\nWhy.\n</think>\n\nExactly this.' }
          : personality === 'reasoning-field'
            ? { content: 'Exactly this.', reasoning_content: 'Why.' }
            : { content: 'Exactly this.' };
      expect(sent, personality).toEqual({ role: 'assistant', ...expected });
    }
  });

  it("a script's own personality overrides the server's default", async () => {
    const shaped = await startScriptedModel({ personality: 'no-text-calls' });
    try {
      const send = (name: string) =>
        fetch(`${shaped.baseURL}/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ model: name, messages: [], ...NATIVE }),
        }).then((response) => response.json() as Promise<{ choices: Array<{ message: Message }> }>);
      shaped.script('default', [CALL]);
      shaped.script('own', [CALL], { personality: 'plain' });
      expect((await send('default')).choices[0]?.message.content).toBeNull();
      expect((await send('own')).choices[0]?.message.content).toBe(THOUGHT);
    } finally {
      await shaped.close();
    }
  });
});

describe('scripted model personalities (text mode: a stop sequence and no tools)', () => {
  it('plain writes the canonical protocol, which the text reader understands', async () => {
    const next = model([CALL, ANSWER]);
    const call = await message(next(TEXT));
    expect(call.content).toBe(`Thought: ${THOUGHT}\nAction: calculator\nAction Input: {"expression":"2+2"}`);
    expect(call.tool_calls).toBeUndefined();
    expect(parseTextReply(call.content!, TAGS).action).toMatchObject({
      tool: 'calculator',
      args: { expression: '2+2' },
    });
    const answer = (await message(next(TEXT))).content!;
    expect(answer).toMatch(/^Thought: .+\nFinal Answer: The sum is 4\.$/);
    expect(parseTextReply(answer, TAGS).finalAnswer).toBe('The sum is 4.');
  });

  it('sloppy-text cycles through the ways small models write an action, by the turn index and the seed', async () => {
    const next = model([CALL, CALL, CALL, CALL, CALL, CALL], 'sloppy-text');
    const replies: string[] = [];
    for (let index = 0; index < 6; index++) replies.push((await message(next(TEXT))).content!);
    expect(replies[0]).toBe(`Thought 1: ${THOUGHT}\nAction 1: calculator\nAction Input 1: {"expression":"2+2"}`);
    expect(replies[1]).toBe(
      `\`\`\`\nThought: ${THOUGHT}\nAction: calculator\nAction Input: {"expression":"2+2"}\n\`\`\``,
    );
    expect(replies[2]).toMatch(/^Action Input: \{"expression":"2\+2"\} \S.+$/m);
    expect(replies[3]).toContain("Action Input: {'expression': '2+2'}");
    expect(replies[4]).toBe(
      `### Thought\n${THOUGHT}\n\n### Action\ncalculator\n\n### Action Input\n{"expression":"2+2"}`,
    );
    expect(replies[5]).toMatch(/^Thought 6: /);
    // A seed starts the cycle elsewhere: seed 3 opens with the Python dict.
    expect((await message(model([CALL], 'sloppy-text', 3)(TEXT))).content).toContain("{'expression': '2+2'}");
  });

  it('sloppy-text answers with "Answer:" or "**Final Answer:**"; content turns stay verbatim', async () => {
    const next = model([ANSWER, ANSWER, { content: 'Thought: x\nFinal Answer: y' }], 'sloppy-text');
    expect((await message(next(TEXT))).content).toMatch(/^Thought: .+\nAnswer: The sum is 4\.$/);
    expect((await message(next(TEXT))).content).toMatch(/\n\n\*\*Final Answer:\*\* The sum is 4\.$/);
    expect((await message(next(TEXT))).content).toBe('Thought: x\nFinal Answer: y');
  });
});

describe('verbatim (raw) turns', () => {
  it('sends a JSON body with its status and headers, whatever the request asked for', async () => {
    const body = { choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] };
    const next = model([{ raw: { kind: 'json', status: 202, body, headers: { 'x-request-id': 'abc' } } }]);
    const response = await next(NATIVE, true); // a stream was asked for: the raw body is sent anyway
    expect(response.status).toBe(202);
    expect(response.headers.get('x-request-id')).toBe('abc');
    expect(await response.json()).toEqual(body);
  });

  it('sends text with its content type, and SSE events as data lines with a bare [DONE]', async () => {
    const next = model([
      { raw: { kind: 'text', status: 502, contentType: 'text/html', body: '<html>Bad gateway</html>' } },
      { raw: { kind: 'sse', events: [{ choices: [{ index: 0, delta: { content: 'a' } }] }, '[DONE]'] } },
    ]);
    const html = await next();
    expect([html.status, html.headers.get('content-type'), await html.text()]).toEqual([
      502,
      'text/html',
      '<html>Bad gateway</html>',
    ]);
    const sse = await next();
    expect(sse.headers.get('content-type')).toBe('text/event-stream');
    expect(await sse.text()).toBe('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: [DONE]\n\n');
  });
});
