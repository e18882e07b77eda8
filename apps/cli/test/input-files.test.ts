// Every command reads documents and topics through one reader: the format named with
// --format (or --docs-format), else the file's name (.jsonl, .tsv, cran.all*, also .gz),
// else its first line; Cranfield's cran.all.1400 and cran.qry included, plain or gzip.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers.
import type { Behaviour } from '@assay/test-support/openai-test-server';
import { describeOnEngines, scratchDir } from './cli-fixtures.js';
import { assay, cli } from './run-cli.js';

const cranfield = fileURLToPath(new URL('../../../datasets/cranfield/', import.meta.url));
const CRAN_DOCS = join(cranfield, 'cran.all.1400');
const CRAN_QUERIES = join(cranfield, 'cran.qry');

/** Three Cranfield-layout documents; only document 3 has the word "flutter". */
const SMALL_CRANFIELD = [
  '.I 1',
  '.T',
  'experimental investigation of the aerodynamics of a',
  'wing in a slipstream .',
  '.A',
  'brenckman,m.',
  '.W',
  'an experimental study of a wing in a propeller slipstream .',
  '.I 2',
  '.T',
  'simple shear flow past a flat plate .',
  '.W',
  'the boundary layer of a flat plate in shear flow .',
  '.I 3',
  '.T',
  'panel flutter at supersonic speeds .',
  '.W',
  'flutter of a flat panel in supersonic flow , flutter boundaries measured .',
  '',
].join('\n');

/** The docnos of a run file, in order (the `#` header left out). */
function docnos(run: string): string[] {
  return readFileSync(run, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.split(' ')[2]!);
}

describe('reading documents and topics (files only)', () => {
  const { dir, file } = scratchDir('assay-input-files-');
  const topics = file('q.tsv', '1\tpanel flutter\n');

  it('assay retrieve reads a Cranfield file by its first line, gzip-compressed or not', async () => {
    for (const docs of [
      file('abstracts', SMALL_CRANFIELD),
      file('abstracts.gz', gzipSync(SMALL_CRANFIELD) as unknown as string),
      file('cran.all.gz', gzipSync(SMALL_CRANFIELD) as unknown as string),
    ]) {
      const out = join(dir, 'flutter.run');
      const r = await cli(
        'retrieve',
        ...['--method', 'bm25', '--docs', docs, '--topics', topics, '--out', out],
      );
      expect(r.code, r.stderr).toBe(0);
      // Only document 3 holds "flutter" (twice in its text, once in its title).
      expect(docnos(out)[0]).toBe('3');
    }
  });

  it('refuses a documents file it cannot tell, naming the formats and --format', async () => {
    const notes = file('notes.txt', 'some words\nmore words\n');
    const r = await cli(
      'retrieve',
      ...['--method', 'bm25', '--docs', notes, '--topics', topics, '--out', join(dir, 'x.run')],
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^assay retrieve: cannot tell the format of ${notes}; give --format jsonl, tsv or cranfield \\(or name it \\.jsonl, \\.tsv or cran\\.all\\*\\)\\n\\nUsage: assay retrieve`,
      ),
    );
    const bad = await cli(
      'retrieve',
      ...['--method', 'bm25', '--docs', notes, '--format', 'csv', '--topics', topics],
      ...['--out', join(dir, 'x.run')],
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^assay retrieve: --format must be one of jsonl, tsv, cranfield, got "csv"\n/,
    );
  });

  it('assay index build --on-disk streams a gzip-compressed collection', async () => {
    const docs = file(
      'collection.tsv.gz',
      gzipSync(
        'd1\twing in a slipstream\nd2\tpanel flutter\nd3\tshear flow\n',
      ) as unknown as string,
    );
    const index = join(dir, 'gz.index');
    const built = await cli('index', 'build', '--docs', docs, '--out', index, '--on-disk');
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toMatch(/^indexed 3 documents on disk /);
    const out = join(dir, 'disk.run');
    const r = await cli(
      'retrieve',
      ...['--method', 'bm25', '--index', index, '--topics', topics, '--out', out],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(docnos(out)).toEqual(['d2']);
  });

  it('assay index build --on-disk takes --format over the name, and the name over the content', async () => {
    // TSV lines in a file named .jsonl: read as JSONL they fail at line 1.
    const docs = file('mislabelled.jsonl', 'd1\tpanel flutter\nd2\tshear flow\n');
    const index = join(dir, 'named.index');
    const asNamed = await cli('index', 'build', '--docs', docs, '--out', index, '--on-disk');
    expect(asNamed.code).toBe(2);
    expect(asNamed.stderr).toBe(`assay index: ${docs}:1: invalid JSON\n`);
    const given = await cli(
      'index',
      ...['build', '--docs', docs, '--format', 'tsv', '--out', index, '--on-disk'],
    );
    expect(given.code, given.stderr).toBe(0);
    expect(given.stdout).toMatch(/^indexed 2 documents on disk /);
  });

  it('assay pool --topics reads cran.qry, its topics numbered by position', async () => {
    // cran.qry's first three queries are .I 001, 002 and 004: topics 1, 2 and 3.
    const qry = file('few.qry', '.I 001\n.W\nfirst\n.I 002\n.W\nsecond\n.I 004\n.W\nthird\n');
    const run = file('r.run', '1 Q0 a 1 3 r\n3 Q0 b 1 2 r\n4 Q0 c 1 1 r\n');
    const r = await cli('pool', '--depth', '1', '--topics', qry, run);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('1\ta\n3\tb\n');
  });

  it('assay judge-report takes --docs-format beside its own --format', async () => {
    const qrels = file('h.qrels', '1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n1 0 d4 0\n');
    const judged = file('j.qrels', '1 0 d1 1\n1 0 d2 1\n1 0 d3 0\n1 0 d4 0\n');
    const passages = file('passages.jsonl', 'd1\tone\nd2\tone two\nd3\ta b c\nd4\ta b c d\n');
    const args = ['--human', qrels, '--judge', `j=${judged}`, '--docs', passages];
    const asNamed = await cli('judge-report', ...args);
    expect(asNamed.code).toBe(2);
    expect(asNamed.stderr).toContain(`${passages}:1: invalid JSON`);
    const r = await cli('judge-report', ...args, '--docs-format', 'tsv', '--format', 'json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).judges[0].lengthBias.n).toBe(4);
    const wrong = await cli('judge-report', ...args, '--docs-format', 'xml');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('--docs-format must be one of jsonl, tsv, cranfield, got "xml"');
  });
});

/** The user message of a chat request the double received. */
function userMessage(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

// Cranfield's document 184 (in the shipped cran.all.1400), "scale models for
// thermo-aeroelastic research", is judged relevant to query 1 (code 2 in cranqrel);
// document 1 is about a wing in a slipstream.
const DOC_184_TITLE = 'scale models for thermo-aeroelastic research .';
const DOC_184_TEXT_START =
  'scale models for thermo-aeroelastic research . an investigation is made of the parameters to be satisfied for thermo-aeroelastic similarity .';
const QUERY_1 =
  'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft .';

describeOnEngines(
  'reading Cranfield in assay judge and assay answers',
  { prefix: 'assay-readers-' },
  (ws) => {
    it('assay judge reads cran.all.1400 and cran.qry as assay retrieve does', async () => {
      const server = await ws.double.start((body): Behaviour => ({
        reply: JSON.stringify({
          intent_match: 1,
          trustworthiness: 1,
          grade: userMessage(body).includes('thermo-aeroelastic similarity') ? 2 : 0,
        }),
      }));
      const pool = ws.path('cran.pool');
      writeFileSync(pool, '1\t184\n1\t1\n');
      const out = ws.path('cran.qrels');
      const r = await assay(
        ws.env,
        ...['judge', '--judge', 'graded-0-3', '--model', 'gpt-4o-mini'],
        ...['--topics', CRAN_QUERIES, '--docs', CRAN_DOCS, '--pool', pool, '--out', out],
        ...['--base-url', server.baseURL],
      );
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe('1 0 1 0\n1 0 184 2\n');
      const prompts = server.requests.map((q) => userMessage(q.body));
      const about184 = prompts.find((p) => p.includes('thermo-aeroelastic'))!;
      expect(about184).toContain(`Query: ${QUERY_1}\n`);
      // The passage: the title on its own line, then the .W text, its lines joined.
      expect(about184).toContain(`Passage:\n${DOC_184_TITLE}\n${DOC_184_TEXT_START}`);
    });

    it('assay judge takes --format over the name, and refuses a file it cannot tell', async () => {
      const server = await ws.double.start((): Behaviour => ({
        reply: JSON.stringify({ intent_match: 1, trustworthiness: 1, grade: 1 }),
      }));
      const topics = ws.path('t.tsv');
      writeFileSync(topics, '7\tpanel flutter\n');
      const pool = ws.path('t.pool');
      writeFileSync(pool, '7\td1\n');
      const docs = ws.path('passages.jsonl');
      writeFileSync(docs, 'd1\tflutter of a flat panel\n');
      const judge = (docsFile: string, ...extra: string[]) =>
        assay(
          ws.env,
          ...['judge', '--judge', 'graded-0-3', '--model', 'gpt-4o-mini', '--topics', topics],
          ...['--docs', docsFile, '--pool', pool, '--out', ws.path('t.qrels')],
          ...['--base-url', server.baseURL, ...extra],
        );
      const asNamed = await judge(docs);
      expect(asNamed.code).toBe(2);
      expect(asNamed.stderr).toBe(`assay judge: ${docs}:1: invalid JSON\n`);
      const given = await judge(docs, '--format', 'tsv');
      expect(given.code, given.stderr).toBe(0);
      expect(readFileSync(ws.path('t.qrels'), 'utf8')).toBe('7 0 d1 1\n');
      expect(userMessage(server.requests[0]!.body)).toContain('Passage:\nflutter of a flat panel');
      const notes = ws.path('notes.txt');
      writeFileSync(notes, 'flutter of a flat panel\n');
      const untold = await judge(notes);
      expect(untold.code).toBe(1);
      expect(untold.stderr).toMatch(
        new RegExp(
          `^assay judge: cannot tell the format of ${notes}; give --format jsonl, tsv or cranfield \\(or name it \\.jsonl, \\.tsv or cran\\.all\\*\\)\\n\\nUsage: assay judge`,
        ),
      );
      expect(server.requests).toHaveLength(1);
    });

    it('assay answers score resolves references through a Cranfield --docs, gzip too', async () => {
      const server = await ws.double.start((body): Behaviour => {
        const grounded = userMessage(body).includes('thermo-aeroelastic similarity');
        return {
          reply: JSON.stringify({
            groundedness: grounded ? 5 : 1,
            answer_relevance: 3,
            correctness: 3,
            justification: grounded ? 'found' : 'not found',
          }),
        };
      });
      const responses = ws.path('responses.jsonl');
      writeFileSync(
        responses,
        [
          {
            topic: '1',
            system: 'a',
            answer: 'Only identical models are similar.',
            references: ['184'],
          },
          { topic: '1', system: 'b', answer: 'Slipstreams raise the lift.', references: ['1'] },
        ]
          .map((r) => JSON.stringify(r))
          .join('\n') + '\n',
      );
      const gz = ws.path('cran.all.1400.gz');
      writeFileSync(gz, gzipSync(readFileSync(CRAN_DOCS)));
      for (const docs of [CRAN_DOCS, gz]) {
        const out = ws.path('scores.jsonl');
        const r = await assay(
          ws.env,
          ...['answers', 'score', '--judge', 'rag-groundedness', '--model', 'judge-model'],
          ...['--responses', responses, '--topics', CRAN_QUERIES, '--docs', docs, '--out', out],
          ...['--base-url', server.baseURL],
        );
        expect(r.code, r.stderr).toBe(0);
        const lines = readFileSync(out, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { system: string; scores: Record<string, number> });
        expect(lines.map((l) => [l.system, l.scores.groundedness])).toEqual([
          ['a', 5],
          ['b', 1],
        ]);
      }
      // The request of system a holds cran.qry's query 1 and document 184's text, not its id.
      const prompt = server.requests
        .map((q) => userMessage(q.body))
        .find((p) => p.includes('identical'))!;
      expect(prompt).toContain(`Question: ${QUERY_1}\n`);
      expect(prompt).toContain(`[1] ${DOC_184_TEXT_START}`);
    });
  },
);
