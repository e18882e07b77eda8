// A TEST DOUBLE of the OpenAI Files and Batches endpoints (and of chat completions, to see
// that nothing is asked live), for assay's tests only. It follows the documented shapes:
// `POST /v1/files` (multipart, purpose `batch`), `POST /v1/batches`, `GET /v1/batches/{id}`,
// `GET /v1/batches`, `GET /v1/files/{id}/content`; a batch moves one status on at each poll
// (validating, in_progress, completed) and answers its lines from a script. Never ships.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the double answers one batch line with (its `custom_id` and request body). */
export type LineAnswer =
  | { reply: string; promptTokens?: number; completionTokens?: number }
  /** The line goes to the error file with this error. */
  | { error: string };

/** A batch as the double keeps it. */
export interface DoubleBatch {
  id: string;
  inputFileId: string;
  status: string;
  polls: number;
  /** The input file's lines, parsed. */
  lines: Array<{ custom_id: string; method: string; url: string; body: Record<string, unknown> }>;
  outputFileId?: string;
  errorFileId?: string;
}

/** The running double. */
export interface BatchTestServer {
  baseURL: string;
  /** Chat completion requests received (live calls). */
  chatRequests: Array<Record<string, unknown>>;
  /** Batches created, in order. */
  batches: DoubleBatch[];
  /** Purposes of the files uploaded. */
  uploads: Array<{ purpose: string; filename: string }>;
  close(): Promise<void>;
}

/** Options of the double. */
export interface BatchDoubleOptions {
  /** The answer to one line of batch number `batch` (1-based). */
  answer: (body: Record<string, unknown>, customId: string, batch: number) => LineAnswer;
  /** Polls a batch stays in_progress before it completes (default 1). */
  pollsInProgress?: (batch: number) => number;
}

/** Starts the double on 127.0.0.1. */
export async function startBatchTestServer(options: BatchDoubleOptions): Promise<BatchTestServer> {
  const files = new Map<string, { purpose: string; content: string }>();
  const batches: DoubleBatch[] = [];
  const chatRequests: Array<Record<string, unknown>> = [];
  const uploads: BatchTestServer['uploads'] = [];
  let fileCount = 0;
  const newFile = (purpose: string, content: string) => {
    const id = `file-${++fileCount}`;
    files.set(id, { purpose, content });
    return id;
  };
  const describe = (b: DoubleBatch) => {
    const done = b.status === 'completed';
    const failed = done
      ? (files
          .get(b.errorFileId ?? '')
          ?.content.split('\n')
          .filter(Boolean).length ?? 0)
      : 0;
    return {
      id: b.id,
      object: 'batch',
      endpoint: '/v1/chat/completions',
      errors: null,
      input_file_id: b.inputFileId,
      completion_window: '24h',
      status: b.status,
      output_file_id: b.outputFileId ?? null,
      error_file_id: b.errorFileId ?? null,
      created_at: 0,
      request_counts: {
        total: b.lines.length,
        completed: done ? b.lines.length - failed : 0,
        failed,
      },
    };
  };
  const complete = (b: DoubleBatch, number: number) => {
    const out: string[] = [];
    const errors: string[] = [];
    b.lines.forEach((line, i) => {
      const answer = options.answer(line.body, line.custom_id, number);
      if ('error' in answer) {
        errors.push(
          JSON.stringify({
            id: `batch_req_${i}`,
            custom_id: line.custom_id,
            response: null,
            error: { code: 'server_error', message: answer.error },
          }),
        );
        return;
      }
      const prompt = answer.promptTokens ?? 100;
      const completion = answer.completionTokens ?? 10;
      out.push(
        JSON.stringify({
          id: `batch_req_${i}`,
          custom_id: line.custom_id,
          response: {
            status_code: 200,
            request_id: `req_${i}`,
            body: {
              id: `chatcmpl-${i}`,
              object: 'chat.completion',
              model: line.body.model,
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: answer.reply },
                  finish_reason: 'stop',
                },
              ],
              usage: {
                prompt_tokens: prompt,
                completion_tokens: completion,
                total_tokens: prompt + completion,
              },
            },
          },
          error: null,
        }),
      );
    });
    if (out.length) b.outputFileId = newFile('batch_output', out.join('\n') + '\n');
    if (errors.length) b.errorFileId = newFile('batch_output', errors.join('\n') + '\n');
    b.status = 'completed';
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://double');
    const path = url.pathname;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const body = await readBody(req);
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      chatRequests.push(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      return json(500, { error: { message: 'the batch double answers no live call' } });
    }
    if (req.method === 'POST' && path === '/v1/files') {
      const form = await new Request('http://double/v1/files', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body,
      }).formData();
      const file = form.get('file');
      const purpose = String(form.get('purpose'));
      if (!(file instanceof Blob)) return json(400, { error: { message: 'no file' } });
      uploads.push({ purpose, filename: (file as File).name });
      const id = newFile(purpose, await file.text());
      return json(200, {
        id,
        object: 'file',
        purpose,
        bytes: file.size,
        filename: (file as File).name,
      });
    }
    if (req.method === 'POST' && path === '/v1/batches') {
      const input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      const file = files.get(String(input.input_file_id));
      if (
        !file ||
        file.purpose !== 'batch' ||
        input.endpoint !== '/v1/chat/completions' ||
        input.completion_window !== '24h'
      )
        return json(400, { error: { message: 'bad batch request' } });
      const batch: DoubleBatch = {
        id: `batch_${batches.length + 1}`,
        inputFileId: String(input.input_file_id),
        status: 'validating',
        polls: 0,
        lines: file.content
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as DoubleBatch['lines'][number]),
      };
      batches.push(batch);
      return json(200, describe(batch));
    }
    if (req.method === 'GET' && path === '/v1/batches')
      return json(200, { object: 'list', data: [...batches].reverse().map(describe) });
    const batchMatch = /^\/v1\/batches\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && batchMatch) {
      const index = batches.findIndex((b) => b.id === batchMatch[1]);
      if (index < 0) return json(404, { error: { message: 'no such batch' } });
      const b = batches[index]!;
      b.polls++;
      if (b.status === 'validating') b.status = 'in_progress';
      else if (b.status === 'in_progress' && b.polls > (options.pollsInProgress?.(index + 1) ?? 1))
        complete(b, index + 1);
      return json(200, describe(b));
    }
    const fileMatch = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
    if (req.method === 'GET' && fileMatch) {
      const file = files.get(fileMatch[1]!);
      if (!file) return json(404, { error: { message: 'no such file' } });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(file.content);
    }
    return json(404, { error: { message: `no route ${req.method} ${path}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    chatRequests,
    batches,
    uploads,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
