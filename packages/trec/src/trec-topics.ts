// TREC topic files in SGML/XML form. Two shapes are read by one scanner:
//   classic (ad hoc, Robust):  <top> <num> Number: 301 <title> … <desc> Description: … </top>
//     where a field runs until the next tag (closing tags are optional);
//   XML (Web, DL, COVID, …):  <topic number="1" type="…"> <query>…</query> … </topic>.
// Any tag opened inside a topic starts a new field; a closing tag ends the open field.
import { TrecFormatError, quote } from './errors.js';
import { TOPIC_TEXT_KEYS, type TopicList } from './topic-list.js';
import type { Topic } from './types.js';

/** Label prefixes that classic TREC topics put at the start of a field's text. */
const FIELD_LABELS: Record<string, RegExp> = {
  num: /^number:\s*/i,
  title: /^topic:\s*/i,
  desc: /^description:\s*/i,
  narr: /^narrative:\s*/i,
  smry: /^summary:\s*/i,
  dom: /^domain:\s*/i,
  con: /^concept\(s\):\s*/i,
  fac: /^factor\(s\):\s*/i,
  def: /^definition\(s\):\s*/i,
  nat: /^nationality:\s*/i,
};

/** Child tags that may hold the topic id, in order of preference (after the attributes). */
const ID_TAGS = ['num', 'number', 'qid', 'id'];
/** Topic tag attributes that may hold the topic id. */
const ID_ATTRIBUTES = ['number', 'id'];
const DESCRIPTION_TAGS = ['desc', 'description'];
const NARRATIVE_TAGS = ['narr', 'narrative'];

const TAG = /<(\/?)([A-Za-z_][\w.:-]*)(\s[^<>]*?)?(\/?)>/y;
const ATTRIBUTE = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;
const ENTITY = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(amp|lt|gt|quot|apos));/g;
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

interface Field {
  name: string;
  line: number;
  value: string;
}

interface OpenTopic {
  tag: string;
  line: number;
  attributes: Map<string, string>;
  fields: Field[];
}

/** Collapses whitespace runs to one space, trims, and decodes XML character references. */
function cleanText(raw: string): string {
  return raw
    .replace(/\s+/g, ' ')
    .trim()
    .replace(ENTITY, (whole, dec?: string, hex?: string, name?: string) => {
      if (name !== undefined) return NAMED_ENTITIES[name] ?? whole;
      const code = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
}

function parseAttributes(source: string | undefined): Map<string, string> {
  const attributes = new Map<string, string>();
  if (source === undefined) return attributes;
  for (const m of source.matchAll(ATTRIBUTE)) {
    attributes.set(m[1]!.toLowerCase(), cleanText(m[2] ?? m[3] ?? m[4] ?? ''));
  }
  return attributes;
}

/** Parses TREC SGML/XML topics from `text` into `list` (which checks duplicate ids). */
export function parseTrecTopics(text: string, file: string, list: TopicList): void {
  const error = (line: number, reason: string) => new TrecFormatError(file, line, reason);

  // Line numbers of increasing offsets, counted incrementally.
  let countedTo = 0;
  let countedLine = 1;
  const lineAt = (offset: number): number => {
    for (let i = text.indexOf('\n', countedTo); i !== -1 && i < offset;) {
      countedLine++;
      i = text.indexOf('\n', i + 1);
    }
    countedTo = Math.max(countedTo, offset);
    return countedLine;
  };

  let topic: OpenTopic | undefined;
  let field: { name: string; line: number; parts: string[] } | undefined;
  let textStart = 0; // where the text after the last piece of markup begins

  const closeField = (at: number): void => {
    if (topic === undefined || field === undefined) return;
    field.parts.push(text.slice(textStart, at));
    let value = cleanText(field.parts.join(''));
    const label = FIELD_LABELS[field.name];
    if (label !== undefined) value = value.replace(label, '');
    topic.fields.push({ name: field.name, line: field.line, value });
    field = undefined;
  };

  let pos = 0;
  for (;;) {
    const lt = text.indexOf('<', pos);
    if (lt === -1) break;
    if (text.startsWith('<!--', lt)) {
      const close = text.indexOf('-->', lt + 4);
      if (close === -1) throw error(lineAt(lt), 'comment is never closed by -->');
      if (field !== undefined) field.parts.push(text.slice(textStart, lt));
      pos = textStart = close + 3;
      continue;
    }
    if (text.startsWith('<![CDATA[', lt)) {
      const close = text.indexOf(']]>', lt + 9);
      if (close === -1) throw error(lineAt(lt), 'CDATA section is never closed by ]]>');
      if (field !== undefined) {
        field.parts.push(text.slice(textStart, lt), text.slice(lt + 9, close));
      }
      pos = textStart = close + 3;
      continue;
    }
    if (text.startsWith('<?', lt) || text.startsWith('<!', lt)) {
      const close = text.indexOf('>', lt);
      if (close === -1) throw error(lineAt(lt), 'declaration is never closed by >');
      if (field !== undefined) field.parts.push(text.slice(textStart, lt));
      pos = textStart = close + 1;
      continue;
    }
    TAG.lastIndex = lt;
    const m = TAG.exec(text);
    if (m === null) {
      pos = lt + 1; // a literal "<" in the text
      continue;
    }
    const next = TAG.lastIndex;
    const closing = m[1] === '/';
    const name = m[2]!.toLowerCase();
    const selfClosing = m[4] === '/';
    const line = lineAt(lt);

    if (name === 'top' || name === 'topic') {
      if (!closing) {
        if (topic !== undefined) {
          throw error(
            line,
            `<${name}> inside the topic opened at line ${topic.line} (missing </${topic.tag}>)`,
          );
        }
        topic = { tag: name, line, attributes: parseAttributes(m[3]), fields: [] };
        if (selfClosing) {
          list.add(finishTopic(topic, error), topicIdLine(topic));
          topic = undefined;
        }
      } else {
        if (topic === undefined) throw error(line, `</${name}> without an open <${name}>`);
        if (topic.tag !== name) {
          throw error(
            line,
            `</${name}> does not close <${topic.tag}> opened at line ${topic.line}`,
          );
        }
        closeField(lt);
        list.add(finishTopic(topic, error), topicIdLine(topic));
        topic = undefined;
      }
    } else if (topic !== undefined) {
      closeField(lt);
      if (!closing && !selfClosing) field = { name, line, parts: [] };
    }
    pos = textStart = next;
  }
  if (topic !== undefined) {
    throw error(topic.line, `<${topic.tag}> opened here is never closed by </${topic.tag}>`);
  }
}

/** The line that names the topic's id: its id tag if it has one, else the topic tag. */
function topicIdLine(topic: OpenTopic): number {
  if (ID_ATTRIBUTES.some((key) => topic.attributes.has(key))) return topic.line;
  for (const tag of ID_TAGS) {
    const field = topic.fields.find((f) => f.name === tag);
    if (field !== undefined) return field.line;
  }
  return topic.line;
}

/** Maps a closed topic's attributes and fields to a Topic, checking id and text. */
function finishTopic(
  topic: OpenTopic,
  error: (line: number, reason: string) => TrecFormatError,
): Topic {
  const byName = new Map<string, Field[]>();
  for (const field of topic.fields) {
    const same = byName.get(field.name);
    if (same === undefined) byName.set(field.name, [field]);
    else same.push(field);
  }
  const used = new Set<string>();
  /** The single field among `names` (first present), rejecting a repeat of it. */
  const single = (names: readonly string[]): Field | undefined => {
    for (const name of names) {
      const fields = byName.get(name);
      if (fields === undefined) continue;
      if (fields.length > 1) {
        const [first, second] = fields as [Field, Field];
        throw error(second.line, `second <${name}> in one topic (first at line ${first.line})`);
      }
      used.add(name);
      return fields[0];
    }
    return undefined;
  };

  let id: string | undefined;
  let idLine = topic.line;
  const idAttribute = ID_ATTRIBUTES.find((key) => topic.attributes.has(key));
  if (idAttribute !== undefined) {
    id = topic.attributes.get(idAttribute);
  } else {
    const idField = single(ID_TAGS);
    if (idField !== undefined) {
      id = idField.value;
      idLine = idField.line;
    }
  }
  if (id === undefined) {
    throw error(topic.line, 'topic has no id (a <num> tag or a number attribute)');
  }
  if (id.length === 0) throw error(idLine, 'empty topic id');
  if (/\s/.test(id)) throw error(idLine, `topic id ${quote(id)} contains whitespace`);

  const textField = single(TOPIC_TEXT_KEYS);
  if (textField === undefined) {
    throw error(topic.line, `topic ${quote(id)} has no query text (<title> or <query>)`);
  }
  if (textField.value.length === 0) {
    throw error(textField.line, `empty <${textField.name}> in topic ${quote(id)}`);
  }

  const result: Topic = { id, text: textField.value };
  const description = single(DESCRIPTION_TAGS);
  if (description !== undefined && description.value.length > 0) {
    result.description = description.value;
  }
  const narrative = single(NARRATIVE_TAGS);
  if (narrative !== undefined && narrative.value.length > 0) {
    result.narrative = narrative.value;
  }

  const fields: Record<string, unknown> = {};
  let extra = false;
  for (const [key, value] of topic.attributes) {
    if (key === idAttribute) continue;
    fields[key] = value;
    extra = true;
  }
  for (const [name, same] of byName) {
    if (used.has(name)) continue;
    const values = same.map((f) => f.value).filter((value) => value.length > 0);
    if (values.length === 0) continue;
    fields[name] = values.length === 1 ? values[0] : values;
    extra = true;
  }
  if (extra) result.fields = fields;
  return result;
}
