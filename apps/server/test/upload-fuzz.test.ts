// Seeded fuzzing of every upload kind (runs, qrels, TSV and JSONL topics, TSV and JSONL
// collections): mutated files (NUL, huge numbers and grades, over-long ids, invalid UTF-8,
// Latin-1, CR-only, CRLF and U+2028 line ends, cut characters, truncation) sent as raw
// bodies. Never a 500 or a thrown request; a refused upload leaves nothing behind; and what
// an accepted upload stored reads back as its file: as many entries as the file has data
// lines, and no U+FFFD that the file did not hold.
import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { setUpApi, type TestApi } from './helpers.js';
import { seededRandom } from '@assay/test-support/seeded';

const PIECES = [
  '\0',
  '\r\n',
  '\r',
  '\u2028',
  '\ufffd',
  '99999999999',
  '2147483648',
  '2000000000',
  '1e400',
  'y'.repeat(600),
  '\t',
  '-',
  '{',
  '"title": 5, ',
  'é',
];

const encode = (text: string) => new TextEncoder().encode(text);

/** `text` mutated one of nine ways, as the bytes to upload. */
function mutate(text: string, next: () => number): Uint8Array {
  const at = Math.floor(next() * (text.length + 1));
  switch (Math.floor(next() * 9)) {
    case 0:
      return encode(text.slice(0, at));
    case 1: {
      const piece = PIECES[Math.floor(next() * PIECES.length)]!;
      return encode(text.slice(0, at) + piece + text.slice(at));
    }
    case 2:
      return encode(text.replace(/\n/g, '\r\n'));
    case 3: {
      const bytes = encode(text);
      const out = new Uint8Array(bytes.length + 1);
      out.set(bytes.subarray(0, at));
      out[at] = 0xff;
      out.set(bytes.subarray(at), at + 1);
      return out;
    }
    case 4:
      return encode(text.replace(/\n/g, '\r'));
    case 5:
      return encode(text.replace(/\n/g, '\u2028'));
    case 6:
      // The same text in ISO-8859-1, sent without declaring it.
      return Uint8Array.from(Buffer.from(text, 'latin1'));
    case 7: {
      // Cut inside the two bytes of an "é".
      const bytes = encode(text);
      const e = bytes.indexOf(0xc3);
      return e === -1 ? bytes : bytes.subarray(0, e + 1);
    }
    default:
      return encode(text);
  }
}

interface Kind {
  name: string;
  text: string;
  /** JSON Lines: U+2028 and a CR inside a line are JSON text and whitespace. */
  json?: boolean;
  /** Where to upload it (a fresh target per try), and the path that lists what it stored. */
  target(i: number, api: TestApi): Promise<{ upload: string; stored: string }>;
  /** The stored rows as JSON text and how many there are. */
  read(api: TestApi, stored: string): Promise<{ rows: number; text: string }>;
}

async function listed(api: TestApi, path: string): Promise<{ rows: number; text: string }> {
  const r = await api.call('GET', path, { token: api.admin });
  const body = (await r.json()) as unknown[] | { documents: unknown[] };
  const rows = Array.isArray(body) ? body : body.documents;
  return { rows: rows.length, text: JSON.stringify(rows) };
}

async function freshCollection(api: TestApi, name: string): Promise<void> {
  const r = await api.call('POST', `/api/collections?name=${name}&format=tsv`, {
    token: api.admin,
    body: 'd1\tpassage\n',
  });
  expect(r.status, await r.clone().text()).toBe(201);
}

const KINDS: Kind[] = [
  {
    name: 'run',
    text: '1 Q0 d1 1 2.5 s\n1 Q0 dé2 2 1.5 s\n2 Q0 d1 1 3 s\n',
    target: async (i) => ({
      upload: `/api/collections/demo/runs?name=f${i}`,
      stored: `/api/collections/demo/runs/f${i}/entries?limit=1000`,
    }),
    read: listed,
  },
  {
    name: 'qrels',
    text: '1 0 d1 1\n1 0 dé2 0\n2 0 d1 2\n',
    target: async (i) => ({
      upload: `/api/collections/demo/label-sets?name=f${i}`,
      stored: `/api/collections/demo/label-sets/f${i}/qrels`,
    }),
    read: async (api, stored) => {
      const text = await (await api.call('GET', stored, { token: api.admin })).text();
      return { rows: text.split('\n').filter((l) => l !== '').length, text };
    },
  },
  {
    name: 'TSV topics',
    text: '11\tfirst quéry\n12\tsecond query\n',
    target: async (i, api) => {
      await freshCollection(api, `t${i}`);
      return {
        upload: `/api/collections/t${i}/topics?format=tsv`,
        stored: `/api/collections/t${i}/topics?limit=1000`,
      };
    },
    read: listed,
  },
  {
    name: 'JSONL topics',
    json: true,
    text: '{"id":"11","text":"first quéry"}\n{"id":"12","text":"second query"}\n',
    target: async (i, api) => {
      await freshCollection(api, `j${i}`);
      return {
        upload: `/api/collections/j${i}/topics?format=jsonl`,
        stored: `/api/collections/j${i}/topics?limit=1000`,
      };
    },
    read: listed,
  },
  {
    name: 'TSV collection',
    text: 'd1\tpassage é one\nd2\tpassage two\n',
    target: async (i) => ({
      upload: `/api/collections?name=ct${i}&format=tsv`,
      stored: `/api/collections/ct${i}/documents?limit=1000`,
    }),
    read: listed,
  },
  {
    name: 'JSONL collection',
    json: true,
    text: '{"id":"d1","title":"é","text":"passage one"}\n{"id":"d2","text":"passage two"}\n',
    target: async (i) => ({
      upload: `/api/collections?name=cj${i}&format=jsonl`,
      stored: `/api/collections/cj${i}/documents?limit=1000`,
    }),
    read: listed,
  },
];

/**
 * The data lines of an accepted file as a person reading it counts them: not blank, not a
 * `#` comment, ended by LF, CRLF, a lone CR or U+2028/U+2029 (JSON Lines: by LF only, the
 * others being JSON whitespace or text there).
 */
function dataLines(bytes: Uint8Array, json: boolean): number {
  return new TextDecoder()
    .decode(bytes)
    .split(json ? /\n/ : /\r\n|\r|\n|\u2028|\u2029/)
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#')).length;
}

forEachDatabase('upload fuzzing', (t) => {
  let api: TestApi;
  // Each test starts on emptied tables (forEachDatabase): the users are made here.
  beforeEach(async () => {
    api = await setUpApi(t.db);
    await freshCollection(api, 'demo');
  });

  /** What the demo collection holds: its runs and label sets as listed. */
  async function contents(): Promise<string> {
    const parts: string[] = [];
    for (const list of ['runs', 'label-sets', 'topics']) {
      const r = await api.call('GET', `/api/collections/demo/${list}`, { token: api.admin });
      parts.push(await r.text());
    }
    return parts.join('\n');
  }

  it('never answers 500, keeps nothing refused, and stores accepted text as it came', async () => {
    const next = seededRandom(7);
    const counts = { tried: 0, refused: 0, accepted: 0, serverError: 0, crashed: 0 };
    for (let i = 0; i < 150; i++) {
      const kind = KINDS[i % KINDS.length]!;
      const { upload, stored } = await kind.target(i, api);
      const body = mutate(kind.text, next);
      const before = await contents();
      counts.tried++;
      let response: Response;
      try {
        response = await api.app.request(upload, {
          method: 'POST',
          headers: { authorization: `Bearer ${api.admin}`, 'content-type': 'text/plain' },
          body,
        });
      } catch (error) {
        counts.crashed++;
        throw error;
      }
      const answer = await response.clone().text();
      if (response.status >= 500) counts.serverError++;
      expect(response.status, `${kind.name}: ${answer}`).toBeLessThan(500);
      if (response.status >= 400) {
        counts.refused++;
        expect(await contents(), `${kind.name} ${i}: ${answer}`).toBe(before);
        continue;
      }
      counts.accepted++;
      const input = new TextDecoder().decode(body);
      const { rows, text } = await kind.read(api, stored);
      expect(rows, `${kind.name} stored ${text} from ${JSON.stringify(input)}`).toBe(
        dataLines(body, kind.json === true),
      );
      if (!input.includes('\ufffd')) expect(text).not.toContain('\ufffd');
    }
    // The counts the acceptance asks for: inputs tried → 4xx / accepted / 500 / crash.
    console.log(
      `upload fuzz [${t.kind}]: ${counts.tried} tried → ${counts.refused} 4xx / ${counts.accepted} accepted / ${counts.serverError} 500 / ${counts.crashed} crash`,
    );
    expect(counts.refused).toBeGreaterThan(20);
    expect(counts.accepted).toBeGreaterThan(20);
    expect(api.logged).toEqual([]);
  }, 300_000);
});
