import { classifyChatError, type ChatClient, type ChatRequest } from './chat-client.js';
import { estimateTokens } from './cost.js';
import type { CallDeps } from './call-deps.js';
import { cachedCall, type CallResult, type SentAnswer } from './cached-call.js';

/**
 * One recorded chat completion (see {@link cachedCall}). Judges and methods both ask
 * through it, so a judge and a method asking the same request share its stored answer.
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
    async (signal) => {
      const answer = await client.complete(request, signal ? { signal } : {});
      const sent: SentAnswer = {
        response: answer.content,
        promptTokens: answer.promptTokens,
        completionTokens: answer.completionTokens,
      };
      if (answer.logprobs) sent.logprobs = answer.logprobs;
      return sent;
    },
    classifyChatError,
    deps,
    tokens,
  );
}
