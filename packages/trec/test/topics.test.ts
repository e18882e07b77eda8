import { describe, expect, it } from 'vitest';
import { type Topic, detectTopicFormat, formatTopicsTsv, parseTopics } from '../src/index.js';
import { formatErrorOf } from './helpers.js';

const errorOf = (text: string, format?: 'tsv' | 'jsonl' | 'trec'): string =>
  formatErrorOf(() => parseTopics(text, 't', format)).message;

describe('parseTopics: TSV', () => {
  it('reads id<TAB>text lines, keeping spaces in the text', () => {
    const text =
      '# dev topics\r\n156493\tdo goldfish grow\r\n\r\n1110199\twhat is  wifi vs bluetooth \r\n';
    expect(parseTopics(text)).toEqual([
      { id: '156493', text: 'do goldfish grow' },
      { id: '1110199', text: 'what is  wifi vs bluetooth' },
    ]);
  });

  it('keeps further tabs inside the text', () => {
    expect(parseTopics('1\ta\tb', 't', 'tsv')).toEqual([{ id: '1', text: 'a\tb' }]);
  });

  it.each([
    ['a line with no tab', '1\tok\n2 no tab here\n', 't:2: expected id<TAB>text, found no tab'],
    ['an empty id', '\tquery\n', 't:1: empty topic id'],
    ['an empty text', '1\tok\n2\t  \n', 't:2: empty query text for topic "2"'],
    ['a duplicate id', '1\ta\n2\tb\n1\tc\n', 't:3: duplicate topic id "1" (first at line 1)'],
    ['an empty file', '\n# nothing\n', 't:0: no topics'],
  ])('rejects %s', (_name, text, message) => {
    expect(errorOf(text, 'tsv')).toBe(message);
  });
});

describe('parseTopics: JSONL', () => {
  it('takes the id and text from the first known key, other keys into fields', () => {
    const text = [
      '{"id": "464", "title": "a community"}',
      '',
      '{"qid": 7, "query": "q text", "title": "T", "lang": "en"}',
      '{"query_id": "x1", "question": "why?", "description": "d", "narrative": "n"}',
      '{"topic_id": 12.5, "text": "t", "query": "q", "meta": {"a": [1]}}',
    ].join('\r\n');
    expect(parseTopics(text)).toEqual<Topic[]>([
      { id: '464', text: 'a community' },
      { id: '7', text: 'q text', fields: { title: 'T', lang: 'en' } },
      { id: 'x1', text: 'why?', description: 'd', narrative: 'n' },
      { id: '12.5', text: 't', fields: { query: 'q', meta: { a: [1] } } },
    ]);
  });

  it.each([
    ['invalid JSON', '{"id": "1", "text": "a"}\n{"id": 2, text}\n', 't:2: invalid JSON'],
    ['a non-object', '{"id": "1", "text": "a"}\n[1, 2]\n', 't:2: expected a JSON object'],
    ['null', '{"id": "1", "text": "a"}\nnull', 't:2: expected a JSON object'],
    ['a missing id', '{"text": "a"}', 't:1: missing topic id (one of id, qid, query_id, topic_id)'],
    [
      'an id of the wrong type',
      '{"id": true, "text": "a"}',
      't:1: topic id "id" must be a string or number',
    ],
    ['an empty id', '{"id": " ", "text": "a"}', 't:1: empty topic id'],
    [
      'missing text',
      '{"id": "1", "body": "a"}',
      't:1: missing query text (one of text, query, title, question)',
    ],
    [
      'text of the wrong type',
      '{"id": "1", "query": 5}',
      't:1: query text "query" must be a string, not a number',
    ],
    [
      'a non-string title beside the text',
      '{"id": "1", "text": "a", "title": {"en": "b"}}',
      't:1: "title" must be a string, not an object',
    ],
    ['empty text', '{"id": "1", "text": ""}', 't:1: empty query text for topic "1"'],
    [
      'a non-string description',
      '{"id": "1", "text": "a", "description": 3}',
      't:1: "description" must be a string, not a number',
    ],
    [
      'a duplicate id',
      '{"id": "1", "text": "a"}\n\n{"id": 1, "text": "b"}',
      't:3: duplicate topic id "1" (first at line 1)',
    ],
  ])('rejects %s', (_name, text, message) => {
    expect(errorOf(text)).toBe(message);
  });
});

const CLASSIC = `<top>

<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal
activity, the activity, and, if possible, collaborating organizations
and the countries involved.

<narr> Narrative:
A relevant document must as a minimum identify the organization and the
type of illegal activity (e.g., Columbian cartel exporting cocaine).

</top>


<top>

<num> Number: 302
<title> Poliomyelitis and Post-Polio

<desc> Description:
Is the disease of Poliomyelitis (polio) under control in the world?

<narr> Narrative:
Relevant documents should contain data or outbreaks of the polio
disease (large or small scale), medical protection against the disease.

</top>
`;

describe('parseTopics: TREC SGML', () => {
  it('reads classic topics without closing tags, stripping the field labels', () => {
    expect(parseTopics(CLASSIC)).toEqual<Topic[]>([
      {
        id: '301',
        text: 'International Organized Crime',
        description:
          'Identify organizations that participate in international criminal activity, the activity, and, if possible, collaborating organizations and the countries involved.',
        narrative:
          'A relevant document must as a minimum identify the organization and the type of illegal activity (e.g., Columbian cartel exporting cocaine).',
      },
      {
        id: '302',
        text: 'Poliomyelitis and Post-Polio',
        description: 'Is the disease of Poliomyelitis (polio) under control in the world?',
        narrative:
          'Relevant documents should contain data or outbreaks of the polio disease (large or small scale), medical protection against the disease.',
      },
    ]);
  });

  it('reads the same topics with CRLF line endings', () => {
    expect(parseTopics(CLASSIC.replaceAll('\n', '\r\n'))).toEqual(parseTopics(CLASSIC));
  });

  it('reads closing tags and keeps other tags (TREC-1 style) as fields', () => {
    const text = `<top>
<head> Tipster Topic Description
<num> Number:  051
<dom> Domain:  International Economics
<title> Topic:  Airbus Subsidies
<desc> Description:
Document will discuss government assistance to Airbus Industrie.
<con> Concept(s):
1.  Airbus Industrie
<fac> Factor(s):
<nat> Nationality: U.S.
</fac>
</top>
<top> <num> Number: MB001 </num> <title> BBC World Service staff cuts </title> </top>`;
    expect(parseTopics(text)).toEqual<Topic[]>([
      {
        id: '051',
        text: 'Airbus Subsidies',
        description: 'Document will discuss government assistance to Airbus Industrie.',
        fields: {
          head: 'Tipster Topic Description',
          dom: 'International Economics',
          con: '1. Airbus Industrie',
          nat: 'U.S.',
        },
      },
      { id: 'MB001', text: 'BBC World Service staff cuts' },
    ]);
  });

  it('reads XML topics with a number attribute (Web track), repeated children as arrays', () => {
    const text = `<?xml version="1.0"?>
<!-- Web track 2009 sample -->
<webtrack2009>
<topic number="1" type="faceted">
  <query>obama family tree</query>
  <description>Find information on President Barack Obama's family
  history, including genealogy &amp; national origins.
  </description>
  <subtopic number="1" type="nav">
    Find the TIME magazine photo essay "Barack Obama's Family Tree".
  </subtopic>
  <subtopic number="2" type="inf">
    Where did Barack Obama's parents and grandparents come from?
  </subtopic>
</topic>
</webtrack2009>`;
    expect(parseTopics(text)).toEqual<Topic[]>([
      {
        id: '1',
        text: 'obama family tree',
        description:
          "Find information on President Barack Obama's family history, including genealogy & national origins.",
        fields: {
          type: 'faceted',
          subtopic: [
            'Find the TIME magazine photo essay "Barack Obama\'s Family Tree".',
            "Where did Barack Obama's parents and grandparents come from?",
          ],
        },
      },
    ]);
  });

  it('reads query / question / narrative children (TREC-COVID style)', () => {
    const text = `<topics task="COVID-19" batch="Round 1">
  <topic number="1">
    <query>coronavirus origin</query>
    <question>what is the origin of COVID-19</question>
    <narrative>seeking range of information about the SARS-CoV-2 virus's origin</narrative>
  </topic>
  <topic number="2">
    <query>coronavirus &lt;response&gt; to weather&#x20;changes</query>
    <question><![CDATA[how does the coronavirus respond to changes in the weather]]></question>
    <narrative>seeking range of information</narrative>
  </topic>
</topics>`;
    expect(parseTopics(text)).toEqual<Topic[]>([
      {
        id: '1',
        text: 'coronavirus origin',
        narrative: "seeking range of information about the SARS-CoV-2 virus's origin",
        fields: { question: 'what is the origin of COVID-19' },
      },
      {
        id: '2',
        text: 'coronavirus <response> to weather changes',
        narrative: 'seeking range of information',
        fields: { question: 'how does the coronavirus respond to changes in the weather' },
      },
    ]);
  });

  it('reads a <number> child as the id', () => {
    expect(parseTopics('<topic><number>7</number><title>x y</title></topic>')).toEqual([
      { id: '7', text: 'x y' },
    ]);
  });

  it.each([
    [
      'a <top> inside a topic',
      '<top>\n<num> Number: 1\n<title> a\n<top>\n<num> Number: 2\n<title> b\n</top>\n',
      't:4: <top> inside the topic opened at line 1 (missing </top>)',
    ],
    [
      'a topic that is never closed',
      '<top>\n<num> Number: 1\n<title> a\n</top>\n\n<top>\n<num> Number: 2\n<title> b\n',
      't:6: <top> opened here is never closed by </top>',
    ],
    ['a stray </top>', '\n</top>\n', 't:2: </top> without an open <top>'],
    [
      'a mismatched closing tag',
      '<topic number="1">\n<query>a</query>\n</top>',
      't:3: </top> does not close <topic> opened at line 1',
    ],
    [
      'a missing id',
      '<top>\n<num> Number: 1\n<title> a\n</top>\n<top>\n<title> b\n</top>',
      't:5: topic has no id (a <num> tag or a number attribute)',
    ],
    ['an empty id', '<top>\n<num> Number:\n<title> a\n</top>', 't:2: empty topic id'],
    [
      'an id with spaces',
      '<top>\n<num> Number: 1 2\n<title> a\n</top>',
      't:2: topic id "1 2" contains whitespace',
    ],
    [
      'a missing title',
      '<top>\n<num> Number: 9\n<desc> Description: only a description\n</top>',
      't:1: topic "9" has no query text (<title> or <query>)',
    ],
    [
      'an empty title',
      '<top>\n<num> Number: 9\n<title>\n\n</top>',
      't:3: empty <title> in topic "9"',
    ],
    [
      'a second title',
      '<top>\n<num> Number: 9\n<title> a\n<title> b\n</top>',
      't:4: second <title> in one topic (first at line 3)',
    ],
    [
      'a duplicate id (pointing at its <num> line)',
      CLASSIC + '\n<top>\n\n<num> Number: 301\n<title> again\n</top>\n',
      't:34: duplicate topic id "301" (first at line 3)',
    ],
    [
      'a duplicate number attribute',
      '<topic number="1"><query>a</query></topic>\n<topic number="1"><query>b</query></topic>',
      't:2: duplicate topic id "1" (first at line 1)',
    ],
    ['an unclosed comment', '<top>\n<!-- oops\n', 't:2: comment is never closed by -->'],
    ['no topics at all', '<topics>\n</topics>\n', 't:0: no topics'],
  ])('rejects %s', (_name, text, message) => {
    expect(errorOf(text, 'trec')).toBe(message);
  });
});

describe('detectTopicFormat', () => {
  it.each([
    ['  \n{"id": 1}', 'jsonl'],
    ['<top>\n<num> Number: 1', 'trec'],
    ['<?xml version="1.0"?>\n<topics>\n<topic number="1">', 'trec'],
    ['1\tquery with <b> markup', 'tsv'],
    ['1\tabout <topics>', 'tsv'],
    ['\n.I 001\n.W\nwhat similarity laws', 'cranfield'],
    ['.I 1\n.W\n<top> of the wing', 'cranfield'],
    ['', 'tsv'],
  ])('detects %j as %s', (text, format) => {
    expect(detectTopicFormat(text)).toBe(format);
  });

  it('detects the format of a text in parts, a tag cut between two parts included', () => {
    expect(detectTopicFormat(['1\tfirst\n2\tsecond <to', 'p>\n'])).toBe('trec');
    expect(detectTopicFormat(['1\tfirst\n<', 'topic', ' number="1">'])).toBe('trec');
    expect(detectTopicFormat(['  ', '\n', '{"id": 1}'])).toBe('jsonl');
    expect(detectTopicFormat(['1\tabout <to', 'pics>'])).toBe('tsv');
    expect(detectTopicFormat(['', '\n.', 'I 001\n'])).toBe('cranfield');
    expect(detectTopicFormat([])).toBe('tsv');
  });

  it('lets an explicit format override detection', () => {
    expect(parseTopics('1\t<top> of the hill', 't', 'tsv')).toEqual([
      { id: '1', text: '<top> of the hill' },
    ]);
    expect(errorOf('{"id": 1, "text": "a"}', 'tsv')).toBe(
      't:1: expected id<TAB>text, found no tab',
    );
  });
});

describe('formatTopicsTsv', () => {
  it('writes id<TAB>text lines and round-trips through parseTopics', () => {
    const topics: Topic[] = [
      { id: '1', text: 'what is  wifi' },
      { id: 'b-2', text: 'caf\u00e9 prices', description: 'not written' },
    ];
    const tsv = formatTopicsTsv(topics);
    expect(tsv).toBe('1\twhat is  wifi\nb-2\tcaf\u00e9 prices\n');
    expect(parseTopics(tsv)).toEqual(topics.map(({ id, text }) => ({ id, text })));
  });

  it('turns tabs and line breaks inside a query into single spaces', () => {
    expect(formatTopicsTsv([{ id: '1', text: 'a\tb\r\nc ' }])).toBe('1\ta b c\n');
  });

  it('refuses an id that would not read back', () => {
    expect(() => formatTopicsTsv([{ id: '1 2', text: 'x' }])).toThrow(
      'topic id "1 2" cannot be written as a TREC field',
    );
  });
});
