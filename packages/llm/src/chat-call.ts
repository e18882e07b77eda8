import { classifyChatError, type ChatClient, type ChatRequest } from './chat-client.js';
import { estimateTokens } from './cost.js';
import type { CallDeps } from './call-deps.js';
import { cachedCall, type CallResult } from './cached-call.js';

/**
 * One recorded chat completion through the judge engine's client. The hash is the one
 * judging uses, so a judge and a method asking the same request share its stored answer.
 */
export function chatCall(
  client: ChatClient,
  request: ChatRequest,
  deps: CallDeps,
): Promise<CallResult> {
  const tokens =
    request.messages.reduce((s, m) => s + estimateTokens(m.content), 0) +
    (request.max_tokens ?? 256);
  return cachedCall(
    'chat.completions',
    request as unknown as Record<string, unknown> & { model: string },
    async () => {
      const answer = await client.complete(request);
      return {
        response: answer.content,
        promptTokens: answer.promptTokens,
        completionTokens: answer.completionTokens,
      };
    },
    classifyChatError,
    deps,
    tokens,
  );
}
