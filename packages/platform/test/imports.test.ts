import {
  getDocument,
  getDocumentsFingerprint,
  getLabelGrades,
  getRunEntries,
  getTopic,
  createLabelSet,
  findLabelSetByName,
  listCollections,
  listRuns,
} from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  createCampaign,
  importCollection,
  importDocuments,
  importQrels,
  importRun,
  importTopics,
  PlatformError,
  resolveCollection,
} from '../src/index.js';
import { bigRun, countRows, rejection, runSql, snapshotCounts } from './helpers.js';

const TINY = { name: 'c', format: 'tsv', file: 'docs.tsv', text: 'd1\ttext one\n' } as const;

forEachDatabase('importCollection', (t) => {
  it('reads JSONL with id aliases, titles and metadata', async () => {
    const result = await importCollection(t.db, {
      name: 'demo',
      description: 'a demo',
      format: 'jsonl',
      file: 'docs.jsonl',
      text: [
        '{"id":"d1","title":"T","text":"one","lang":"en"}',
        '{"docid":"d2","text":"two"}',
        '',
        '{"doc_id":"d3","text":"three","url":"http://x"}',
        '{"_id":"d4","text":"four"}',
      ].join('\n'),
    });
    expect(result).toEqual({ collectionId: expect.any(Number), name: 'demo', documents: 4 });
    expect(await getDocument(t.db, result.collectionId, 'd1')).toMatchObject({
      title: 'T',
      text: 'one',
      metadata: { lang: 'en' },
    });
    expect(await getDocument(t.db, result.collectionId, 'd3')).toMatchObject({
      title: null,
      metadata: { url: 'http://x' },
    });
    expect(await getDocument(t.db, result.collectionId, 'd4')).toMatchObject({ text: 'four' });
    expect(await listCollections(t.db)).toEqual([
      expect.objectContaining({ name: 'demo', description: 'a demo', documentCount: 4 }),
    ]);
  });

  it('reads TSV with and without titles, and the Cranfield layout', async () => {
    const tsv = await importCollection(t.db, {
      name: 'tsv',
      format: 'tsv',
      file: 'docs.tsv',
      text: 'a\tjust text\nb\ta title\tand text\n',
    });
    expect(tsv.documents).toBe(2);
    expect(await getDocument(t.db, tsv.collectionId, 'b')).toMatchObject({
      title: 'a title',
      text: 'and text',
    });
    const cran = await importCollection(t.db, {
      name: 'cran',
      format: 'cranfield',
      file: 'cran.all',
      text: '.I 1\n.T\nwing in a\nslipstream .\n.A\nbrenckman,m.\n.B\nj. ae. 1958.\n.W\nan experimental\nstudy .\n.I 2\n.T\nsecond\n.W\nmore text\n',
    });
    expect(cran.documents).toBe(2);
    expect(await getDocument(t.db, cran.collectionId, '1')).toMatchObject({
      title: 'wing in a slipstream .',
      text: 'an experimental study .',
      metadata: { authors: 'brenckman,m.', bibliography: 'j. ae. 1958.' },
    });
  });

  it('refuses a taken name', async () => {
    await importCollection(t.db, TINY);
    const error = await rejection(importCollection(t.db, { ...TINY, text: 'd9\tother\n' }));
    expect(error).toMatchObject({ code: 'conflict', message: 'collection "c" already exists' });
    expect(await countRows(t.db, 'documents')).toBe(1);
  });

  it('names the bad line and keeps nothing', async () => {
    const cases: Array<[string, string, string]> = [
      ['jsonl', '{"id":"a","text":"t"}\n{"id":"b","text":', 'docs:2: invalid JSON'],
      ['jsonl', '{"id":"a","text":"t"}\n{"text":"u"}\n', 'docs:2: no document id'],
      ['jsonl', '{"id":"a","text":"t"}\n\n{"id":"b"}\n', 'docs:3: no document text'],
      [
        'jsonl',
        '{"id":"a","text":"t"}\n{"id":"a","text":"u"}\n',
        'docs:2: duplicate document id "a" (first at line 1)',
      ],
      ['tsv', 'a\tx\nb\n', 'docs:2: expected id<TAB>text or id<TAB>title<TAB>text, found 1 fields'],
      ['cranfield', '.I 1\n.W\nx\n.I 1\n.W\ny\n', 'docs:4: duplicate document id "1"'],
    ];
    for (const [format, text, message] of cases) {
      const error = await rejection(
        importCollection(t.db, {
          name: 'x',
          format: format as 'jsonl',
          file: 'docs',
          text,
        }),
      );
      expect(error).toBeInstanceOf(PlatformError);
      expect(error.code).toBe('invalid_input');
      expect(error.message.startsWith(message)).toBe(true);
    }
    expect(await snapshotCounts(t.db)).toMatchObject({ collections: 0, documents: 0 });
  });

  it('tells the format from the file name, else the first line, when none is given', async () => {
    const byName = await importCollection(t.db, {
      name: 'by-name',
      file: 'cran.all.1400',
      text: '.I 7\n.T\nflutter\n.W\nwing flutter at mach 2 .\n',
    });
    expect(await getDocument(t.db, byName.collectionId, '7')).toMatchObject({
      title: 'flutter',
      text: 'wing flutter at mach 2 .',
    });
    // An upload without a file name: a tab on the first line is TSV, in whatever parts.
    const byContent = await importCollection(t.db, {
      name: 'by-content',
      file: 'documents',
      text: ['# exported\nd1\tT', 'itle\tbody one\nd2\tbody two\n'],
    });
    expect(byContent.documents).toBe(2);
    expect(await getDocument(t.db, byContent.collectionId, 'd1')).toMatchObject({
      title: 'Title',
      text: 'body one',
    });
    // The format given wins over the name.
    const given = await importCollection(t.db, {
      name: 'given',
      format: 'jsonl',
      file: 'docs.tsv',
      text: '{"id":"j1","text":"json after all"}\n',
    });
    expect(given.documents).toBe(1);
    // No format to tell from an empty file: an evaluation-only collection, as before.
    expect(
      (await importCollection(t.db, { name: 'empty', file: 'documents', text: '' })).documents,
    ).toBe(0);
  });

  it('refuses a file whose format nothing tells, naming the formats, and keeps nothing', async () => {
    const before = await snapshotCounts(t.db);
    const error = await rejection(
      importCollection(t.db, { name: 'x', file: 'notes.txt', text: 'just words\n' }),
    );
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({
      code: 'invalid_input',
      message:
        'cannot tell the format of notes.txt; give format jsonl, tsv or cranfield (or name it .jsonl, .tsv or cran.all*)',
      details: { file: 'notes.txt', formats: ['jsonl', 'tsv', 'cranfield'] },
    });
    expect(await snapshotCounts(t.db)).toEqual(before);
  });

  it('rejects an empty name before reading the file', async () => {
    await expect(importCollection(t.db, { ...TINY, name: '  ' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});

forEachDatabase('importDocuments', (t) => {
  it('adds documents to a collection made without them, and the fingerprint is made anew', async () => {
    const made = await importCollection(t.db, { name: 'empty', file: 'none.txt', text: '' });
    const version = async () => {
      const recorded = (await getDocumentsFingerprint(t.db, made.collectionId))!;
      return { v: recorded.version, f: recorded.fingerprint };
    };
    const before = (await version()).v;
    const added = await importDocuments(t.db, {
      collection: 'empty',
      file: 'more.jsonl',
      text: '{"id":"p1","text":"first passage"}\n{"id":"p2","title":"T","text":"second"}\n',
    });
    expect(added).toMatchObject({ name: 'empty', documents: 2, total: 2 });
    const again = await importDocuments(t.db, {
      collection: added.collectionId,
      file: 'cran.tsv',
      text: 'p3\tthird\n',
    });
    expect(again).toMatchObject({ documents: 1, total: 3 });
    expect((await getDocument(t.db, added.collectionId, 'p2'))?.title).toBe('T');
    // Each write counts as a new version of the documents (any index made before is stale).
    expect(await version()).toEqual({ v: before + 2, f: null });
  });

  it('refuses docnos the collection holds, naming them, and keeps nothing of the file', async () => {
    await importCollection(t.db, TINY);
    const before = await snapshotCounts(t.db);
    const refused = await rejection(
      importDocuments(t.db, {
        collection: 'c',
        format: 'tsv',
        file: 'more.tsv',
        text: 'd9\tnew\nd1\tagain\n',
      }),
    );
    expect(refused).toBeInstanceOf(PlatformError);
    expect(refused.code).toBe('conflict');
    expect(refused.message).toBe('1 document(s) of more.tsv are already in collection "c" ("d1")');
    expect(await snapshotCounts(t.db)).toEqual(before);
  });

  it('refuses a bad line, an empty file and an unknown collection', async () => {
    await importCollection(t.db, TINY);
    const bad = await rejection(
      importDocuments(t.db, {
        collection: 'c',
        format: 'jsonl',
        file: 'x.jsonl',
        text: '{"id":"a"}\n',
      }),
    );
    expect(bad.message).toMatch(/^x\.jsonl:1: /);
    const empty = await rejection(
      importDocuments(t.db, { collection: 'c', format: 'tsv', file: 'e.tsv', text: '\n' }),
    );
    expect(empty.message).toMatch(/^e\.tsv:.*no documents/);
    const unknown = await rejection(
      importDocuments(t.db, { collection: 'nope', format: 'tsv', file: 'd.tsv', text: 'a\tb\n' }),
    );
    expect(unknown.code).toBe('not_found');
  });
});

forEachDatabase('importTopics', (t) => {
  it('adds TSV, JSONL (with conversational context) and TREC topics; collection by name or id', async () => {
    const { collectionId } = await importCollection(t.db, TINY);
    expect(
      await importTopics(t.db, { collection: 'c', file: 't.tsv', text: '1\tfirst\n2\tsecond\n' }),
    ).toEqual({ collectionId, topics: 2 });
    const jsonl = [
      JSON.stringify({
        id: '3',
        text: 'and in winter?',
        previous_turns: ['where to go in norway', { role: 'assistant', text: 'Bergen.' }],
        user_background: 'I hate the cold',
        context: { session: 's1' },
      }),
      JSON.stringify({ id: '4', query: 'plain', description: 'D', narrative: 'N' }),
    ].join('\n');
    await importTopics(t.db, { collection: collectionId, file: 't.jsonl', text: jsonl });
    expect(await getTopic(t.db, collectionId, '3')).toMatchObject({
      query: 'and in winter?',
      context: {
        session: 's1',
        previousTurns: [
          { role: 'user', text: 'where to go in norway' },
          { role: 'assistant', text: 'Bergen.' },
        ],
        userBackground: ['I hate the cold'],
      },
    });
    expect(await getTopic(t.db, collectionId, '4')).toMatchObject({
      query: 'plain',
      description: 'D',
      narrative: 'N',
      context: null,
    });
    await importTopics(t.db, {
      collection: String(collectionId), // digits that name no collection: the id
      file: 'topics.301',
      format: 'trec',
      text: '<top>\n<num> Number: 301\n<title> international crime\n<desc> Description:\nfind it\n<narr> Narrative:\nrelevant\n</top>\n',
    });
    expect(await getTopic(t.db, collectionId, '301')).toMatchObject({
      query: 'international crime',
      description: 'find it',
    });
  });

  it("adds Cranfield's cran.qry, detected, numbered by position as cranqrel numbers them", async () => {
    const { collectionId } = await importCollection(t.db, TINY);
    const qry =
      '.I 001\r\n.W\r\nwhat similarity laws\r\nmust be obeyed .\r\n.I 004\r\n.W\r\nheat conduction .\r\n';
    expect(await importTopics(t.db, { collection: 'c', file: 'cran.qry', text: qry })).toEqual({
      collectionId,
      topics: 2,
    });
    expect(await getTopic(t.db, collectionId, '1')).toMatchObject({
      query: 'what similarity laws must be obeyed .',
      description: null,
    });
    expect(await getTopic(t.db, collectionId, '2')).toMatchObject({ query: 'heat conduction .' });
    const bad = await rejection(
      importTopics(t.db, { collection: 'c', file: 'q', format: 'cranfield', text: 'x\n.I 1\n' }),
    );
    expect(bad).toMatchObject({ code: 'invalid_input', message: 'q:1: text before the first .I' });
  });

  it('keeps nothing from a file with a bad line, a known topic id or bad context', async () => {
    await importCollection(t.db, TINY);
    await importTopics(t.db, { collection: 'c', file: 't', text: '1\tfirst\n' });
    const bad = await rejection(
      importTopics(t.db, { collection: 'c', file: 't.tsv', text: '2\tsecond\n3\n' }),
    );
    expect(bad).toMatchObject({ code: 'invalid_input' });
    expect(bad.message).toMatch(/^t\.tsv:2: /);
    const clash = await rejection(
      importTopics(t.db, { collection: 'c', file: 't2', text: '2\tsecond\n1\tagain\n' }),
    );
    expect(clash).toMatchObject({ code: 'conflict' });
    expect(clash.message).toContain('"1"');
    const context = await rejection(
      importTopics(t.db, {
        collection: 'c',
        file: 't.jsonl',
        text: '{"id":"5","text":"q","previous_turns":[{"role":"bot","text":"x"}]}\n',
      }),
    );
    expect(context).toMatchObject({ code: 'invalid_input' });
    expect(context.message).toMatch(/^t\.jsonl:1: topic "5": "previous_turns" must be/);
    expect(await countRows(t.db, 'topics')).toBe(1);
    await expect(
      importTopics(t.db, { collection: 'nope', file: 't', text: '9\tq\n' }),
    ).rejects.toMatchObject({ code: 'not_found', message: 'no collection "nope"' });
  });
});

forEachDatabase('importQrels', (t) => {
  it('stores a human_qrels label set with the seen scale, or a given one', async () => {
    const { collectionId } = await importCollection(t.db, TINY);
    const result = await importQrels(t.db, {
      collection: 'c',
      labelSet: 'nist',
      file: 'qrels',
      text: '1 0 d1 2\n1 0 d2 0\n2 0 d2 1\n',
    });
    expect(result).toEqual({
      labelSetId: expect.any(Number),
      name: 'nist',
      labels: 3,
      topics: 2,
      scale: { min: 0, max: 2 },
      replaced: false,
      labelSet: expect.objectContaining({ name: 'nist', labelCount: 3, topicCount: 2 }),
    });
    const set = await findLabelSetByName(t.db, collectionId, 'nist');
    expect(set).toMatchObject({ kind: 'human_qrels', scaleMin: 0, scaleMax: 2 });
    expect((await getLabelGrades(t.db, set!.id)).get('1')).toEqual(
      new Map([
        ['d1', 2],
        ['d2', 0],
      ]),
    );
    const wide = await importQrels(t.db, {
      collection: 'c',
      labelSet: 'wide',
      file: 'q',
      text: '1 0 d1 -1\n1 0 d2 1\n',
      scale: { min: -1, max: 3 },
    });
    expect(wide.scale).toEqual({ min: -1, max: 3 });
    await expect(
      importQrels(t.db, {
        collection: 'c',
        labelSet: 'narrow',
        file: 'q',
        text: '1 0 d1 4\n',
        scale: { min: 0, max: 3 },
      }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      // The declared scale is checked line by line: the first grade outside it, and its line.
      message: 'q:1: grade 4 is outside the scale 0..3',
    });
  });

  it('bounds grades on every way into a label set: lines, declared scales, campaign scales', async () => {
    await importCollection(t.db, TINY);
    const before = await snapshotCounts(t.db);
    for (const kind of ['human', 'llm'] as const) {
      await expect(
        importQrels(t.db, {
          collection: 'c',
          labelSet: `big-${kind}`,
          file: 'big.qrels',
          text: '1 0 d1 1\n1 0 184 2000000000\n',
          kind,
        }),
      ).rejects.toMatchObject({
        code: 'invalid_input',
        message: 'big.qrels:2: grade 2000000000 is outside -1000..1000, the grades assay stores',
      });
    }
    await expect(
      importQrels(t.db, {
        collection: 'c',
        labelSet: 'wide',
        file: 'q',
        text: '1 0 d1 1\n',
        scale: { min: 0, max: 2000000000 },
      }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'scale 0..2000000000 is outside -1000..1000, the grades assay stores',
    });
    // Within the 21 grades a campaign shows, but far beyond the grades stored.
    await expect(
      createCampaign(t.db, {
        collection: 'c',
        name: 'far',
        items: [{ topic: '1', docno: 'd1' }],
        scale: { min: 1999999990, max: 2000000000 },
        annotators: [],
      }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'scale 1999999990..2000000000 is outside -1000..1000, the grades assay stores',
    });
    expect(await snapshotCounts(t.db)).toEqual(before);
  });

  it('asks for replace, then swaps the label set in one transaction', async () => {
    const { collectionId } = await importCollection(t.db, TINY);
    await importQrels(t.db, { collection: 'c', labelSet: 'h', file: 'q', text: '1 0 d1 1\n' });
    const conflict = await rejection(
      importQrels(t.db, { collection: 'c', labelSet: 'h', file: 'q2', text: '1 0 d1 3\n' }),
    );
    expect(conflict).toMatchObject({
      code: 'conflict',
      message: 'label set "h" already exists in collection "c"',
      details: { replaceable: true },
    });
    const replaced = await importQrels(t.db, {
      collection: 'c',
      labelSet: 'h',
      file: 'q2',
      text: '1 0 d1 3\n2 0 d5 0\n',
      replace: true,
    });
    expect(replaced).toMatchObject({ labels: 2, replaced: true });
    const set = await findLabelSetByName(t.db, collectionId, 'h');
    expect((await getLabelGrades(t.db, set!.id)).get('1')?.get('d1')).toBe(3);
    expect(await countRows(t.db, 'label_sets')).toBe(1);
    expect(await countRows(t.db, 'labels')).toBe(2);
    // A label set that is not imported qrels is never replaced by an import.
    await createLabelSet(t.db, {
      collectionId,
      name: 'gpt',
      kind: 'llm_judge',
      scaleMin: 0,
      scaleMax: 3,
    });
    await expect(
      importQrels(t.db, {
        collection: 'c',
        labelSet: 'gpt',
        file: 'q',
        text: '1 0 d1 1\n',
        replace: true,
      }),
    ).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/llm_judge/) });
  });

  it('keeps nothing from a file with a bad line', async () => {
    await importCollection(t.db, TINY);
    const before = await snapshotCounts(t.db);
    const error = await rejection(
      importQrels(t.db, { collection: 'c', labelSet: 'h', file: 'q', text: '1 0 d1 1\n1 0 d2\n' }),
    );
    expect(error).toMatchObject({ code: 'invalid_input' });
    expect(error.message).toMatch(/^q:2: /);
    expect(await snapshotCounts(t.db)).toEqual(before);
  });
});

forEachDatabase('importRun', (t) => {
  it('stores a run named after its tag, or as asked', async () => {
    const { collectionId } = await importCollection(t.db, TINY);
    const run = await importRun(t.db, {
      collection: 'c',
      file: 'bm25.run',
      text: '1 Q0 d2 1 2.5 bm25\n1 Q0 d1 2 1.25 bm25\n2 Q0 d1 1 0.5 bm25\n',
    });
    expect(run).toEqual({
      runId: expect.any(Number),
      name: 'bm25',
      entries: 3,
      topics: 2,
      replaced: false,
      run: expect.objectContaining({ name: 'bm25', entryCount: 3, topicCount: 2 }),
    });
    expect((await getRunEntries(t.db, run.runId)).get('1')).toEqual([
      { topicId: '1', docId: 'd2', rank: 1, score: 2.5 },
      { topicId: '1', docId: 'd1', rank: 2, score: 1.25 },
    ]);
    const named = await importRun(t.db, {
      collection: collectionId,
      name: 'my-bm25',
      file: 'bm25.run',
      text: '1 Q0 d2 1 2.5 bm25\n',
    });
    expect(named.name).toBe('my-bm25');
    expect((await listRuns(t.db, collectionId)).map((r) => [r.name, r.tag])).toEqual([
      ['bm25', 'bm25'],
      ['my-bm25', 'bm25'],
    ]);
  });

  it('refuses a bad line 30,000 lines in and leaves the run tables unchanged', async () => {
    await importCollection(t.db, TINY);
    await importRun(t.db, { collection: 'c', file: 'small', text: '1 Q0 d1 1 1 small\n' });
    const before = [await countRows(t.db, 'runs'), await countRows(t.db, 'run_entries')];
    expect(before).toEqual([1, 1]);
    const text = bigRun(30_000, 'big', { line: 30_000, text: '30 Q0 doc30000 1000 high big' });
    const error = await rejection(importRun(t.db, { collection: 'c', file: 'big.run', text }));
    expect(error).toBeInstanceOf(PlatformError);
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe('big.run:30000: score "high" is not a finite number');
    expect((error as PlatformError).details).toEqual({ file: 'big.run', line: 30_000 });
    expect([await countRows(t.db, 'runs'), await countRows(t.db, 'run_entries')]).toEqual(before);
  });

  it('rolls back a run the database refuses after 20,000 rows were written', async () => {
    await importCollection(t.db, TINY);
    await importRun(t.db, { collection: 'c', file: 'old', text: '1 Q0 d1 1 1 big\n' });
    const before = await snapshotCounts(t.db);
    // A constraint of this test's own refuses one docno on line 25,000: the parser accepts
    // the line, and the database refuses it in the third 10,000-row batch.
    await runSql(
      t.db,
      "alter table run_entries add constraint test_refused check (doc_id <> 'refused')",
    );
    const text = bigRun(25_000, 'big', { line: 25_000, text: '25 Q0 refused 1000 0.1 big' });
    const error = await rejection(
      importRun(t.db, { collection: 'c', file: 'nul.run', text, replace: true }),
    );
    await runSql(t.db, 'alter table run_entries drop constraint test_refused');
    expect(error).toMatchObject({ code: 'invalid_input' });
    // No line number to give, and in words rather than the database's own text.
    expect(error.message).toBe('nul.run: a value was refused as out of range or malformed');
    expect(await snapshotCounts(t.db)).toEqual(before);
    const [old] = await listRuns(t.db, (await resolveCollection(t.db, 'c')).id);
    expect(old).toMatchObject({ name: 'big', entryCount: 1 });
  });

  it('asks for replace before overwriting a run, then replaces it whole', async () => {
    await importCollection(t.db, TINY);
    await importRun(t.db, { collection: 'c', file: 'r', text: '1 Q0 d1 1 2 sys\n' });
    const conflict = await rejection(
      importRun(t.db, { collection: 'c', file: 'r2', text: '1 Q0 d1 1 2 sys\n' }),
    );
    expect(conflict).toMatchObject({
      code: 'conflict',
      message: 'run "sys" already exists in collection "c"',
      details: { replaceable: true },
    });
    const replaced = await importRun(t.db, {
      collection: 'c',
      file: 'r',
      replace: true,
      text: '1 Q0 d1 1 2 sys\n1 Q0 d2 2 1 sys\n3 Q0 d2 1 1 sys\n',
    });
    expect(replaced).toMatchObject({ entries: 3, topics: 2, replaced: true });
    expect(await countRows(t.db, 'runs')).toBe(1);
    expect(await countRows(t.db, 'run_entries')).toBe(3);
  });

  it('reports an unknown collection as not_found after parsing', async () => {
    await expect(
      importRun(t.db, { collection: 'nope', file: 'r', text: '1 Q0 d1 1 2 s\n' }),
    ).rejects.toMatchObject({ code: 'not_found', message: 'no collection "nope"' });
    await expect(
      importRun(t.db, { collection: 42, file: 'r', text: '1 Q0 d1 1 2 s\n' }),
    ).rejects.toMatchObject({ code: 'not_found', message: 'no collection 42' });
    // A malformed file is reported first, whatever the collection.
    await expect(
      importRun(t.db, { collection: 'nope', file: 'r', text: '1 Q0 d1\n' }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
