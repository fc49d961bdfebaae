import type { ToolOutput } from '../tools/define-tool';
import { DurableAgentError } from '../../shared/errors';

/** A content block of an MCP tool result, as far as the observation needs it. */
interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** An MCP tool's result: content blocks, optional structured content, and whether the tool reports an error. */
export interface McpCallResult {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool's own error (`isError: true`): the model sees its text as an error observation; it is not retried. */
export class McpToolError extends DurableAgentError {
  override readonly name = 'McpToolError';
}

/** Size in bytes of base64 data, for the note that stands in for an image or a binary resource. */
function base64Bytes(data: string | undefined): number {
  return data ? Math.floor((data.length * 3) / 4) : 0;
}

/** One block as text: text as it is; images, audio and resources as a note saying what they were, never dropped. */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType ?? 'unknown type'}, ${base64Bytes(block.data)} bytes, not shown to the model]`;
    case 'resource_link':
      return `[resource link: ${block.uri ?? '?'}${block.name ? ` (${block.name})` : ''}]`;
    case 'resource': {
      const resource = block.resource ?? {};
      if (resource.text !== undefined) return `[resource ${resource.uri ?? '?'}]\n${resource.text}`;
      return `[resource ${resource.uri ?? '?'}: ${resource.mimeType ?? 'binary'}, ${base64Bytes(resource.blob)} bytes, not shown]`;
    }
    default:
      return `[${block.type} content, not shown]`;
  }
}

/**
 * An MCP result as a tool output: structured content when the tool gave some (kept as data, shown as JSON), else the
 * blocks as text. A result the tool marked as an error throws {@link McpToolError} with its text.
 */
export function toToolOutput(result: McpCallResult): ToolOutput {
  const text = (result.content ?? []).map(blockText).join('\n');
  if (result.isError) throw new McpToolError(text || 'the tool reported an error without a message');
  if (result.structuredContent !== undefined) return result.structuredContent;
  return text;
}
