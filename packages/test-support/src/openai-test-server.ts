// A TEST DOUBLE of an OpenAI-compatible chat-completions endpoint, for assay's tests only.
// It answers from a script and can inject faults (429 with Retry-After, 500, slow answers,
// malformed bodies, dropped connections). It is not a judge and never ships.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the double does for one request. */
export type Behaviour =
  | {
      reply: string;
      promptTokens?: number;
      completionTokens?: number;
      logprobs?: unknown;
      delayMs?: number;
    }
  | { status: number; message?: string; retryAfter?: string; retryAfterMs?: string }
  | { delayMs: number; then: Behaviour }
  | { malformedBody: true }
  | { drop: true }
  /** A 200 whose body is this JSON as is (for `/v1/embeddings` and `/v1/rerank`). */
  | { json: unknown }
  /**
   * A 200 whose body goes on for this many bytes (a chat answer padded with spaces, sent
   * in 1 MiB chunks without a Content-Length) or until the client hangs up.
   */
  | { hugeBody: number };

/** A request the double received. */
export interface ReceivedRequest {
  body: Record<string, unknown>;
  authorization: string | undefined;
  /** The request path (e.g. `/v1/chat/completions`, `/v1/embeddings`). */
  path: string;
}

/** The running double: its base URL, what it received, and a way to stop it. */
export interface TestServer {
  baseURL: string;
  requests: ReceivedRequest[];
  /**
   * Requests whose answer (a 200 with a reply) was written out completely: the calls a
   * client was charged for. A request dropped, failed or cut off by a dying client is not here.
   */
  delivered: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * Starts the double on 127.0.0.1; `script(body, n, path)` picks the behaviour of request n
 * (1-based) to `path`.
 */
export async function startOpenAITestServer(
  script: (body: Record<string, unknown>, n: number, path: string) => Behaviour,
): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const delivered: ReceivedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const received = { body, authorization: req.headers.authorization, path: req.url ?? '' };
    requests.push(received);
    let behaviour = script(body, requests.length, received.path);
    while ('then' in behaviour) {
      await sleep(behaviour.delayMs);
      behaviour = behaviour.then;
    }
    if (res.destroyed) return;
    if ('drop' in behaviour) {
      req.socket.destroy();
      return;
    }
    if ('malformedBody' in behaviour) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "chatcmpl-x", "choices": [ {"message": ');
      return;
    }
    if ('status' in behaviour) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (behaviour.retryAfter !== undefined) headers['retry-after'] = behaviour.retryAfter;
      if (behaviour.retryAfterMs !== undefined) headers['retry-after-ms'] = behaviour.retryAfterMs;
      res.writeHead(behaviour.status, headers);
      res.end(
        JSON.stringify({
          error: { message: behaviour.message ?? `status ${behaviour.status}`, type: 'test' },
        }),
      );
      return;
    }
    if ('hugeBody' in behaviour) {
      await streamHugeBody(res, behaviour.hugeBody);
      return;
    }
    if ('json' in behaviour) {
      res.on('finish', () => delivered.push(received));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(behaviour.json));
      return;
    }
    if (behaviour.delayMs) await sleep(behaviour.delayMs);
    if (res.destroyed) return;
    const choice: Record<string, unknown> = {
      index: 0,
      message: { role: 'assistant', content: behaviour.reply },
      finish_reason: 'stop',
    };
    if (behaviour.logprobs) choice.logprobs = { content: behaviour.logprobs };
    res.on('finish', () => delivered.push(received));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [choice],
        usage: {
          prompt_tokens: behaviour.promptTokens ?? 100,
          completion_tokens: behaviour.completionTokens ?? 10,
          total_tokens: (behaviour.promptTokens ?? 100) + (behaviour.completionTokens ?? 10),
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    delivered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a chat answer of `bytes` bytes chunk by chunk, stopping when the client hangs up. */
async function streamHugeBody(res: ServerResponse, bytes: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  const head =
    '{"id":"chatcmpl-huge","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"';
  const tail = '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}';
  res.write(head);
  const chunk = ' '.repeat(1024 * 1024);
  let sent = head.length;
  while (sent + tail.length < bytes && !res.destroyed) {
    const part = chunk.slice(0, Math.min(chunk.length, bytes - tail.length - sent));
    sent += part.length;
    if (!res.write(part))
      await new Promise<void>((resolve) => {
        // Both listeners go once either fires, so a long body does not pile them up.
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
  }
  if (!res.destroyed) res.end(tail);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (data += chunk));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

/** A wait that never keeps the test process alive on its own. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
