// The worker thread that hosts assay's embedded PGlite (see pglite-thread.ts): PGlite's
// WebAssembly runs here, off the main thread, so HTTP requests, LLM calls and JSON work
// of the main thread go on while a statement executes. Plain JavaScript so it runs from
// the sources and from the bundle alike.
//
// Messages in:  { id, kind: 'query', sql, params, blob? } | { id, kind: 'exec', sql }
//               | { id, kind: 'protocol', bytes } | { id, kind: 'dump' } | { id, kind: 'close' }
// workerData: { dataDir, template? }: a new database starts from the gzipped data folder
// `template` (a dump of one made earlier) instead of running initdb.
// Messages out: { ready: true } | { ready: false, error } once, then { id, result } | { id, error }
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';

// PGlite decodes every text it returns with a TextDecoder of its own, whose default drops a
// leading U+FEFF (byte-order mark): a passage, title or id stored as "\uFEFF…" came back
// without it, where PostgreSQL returns it. This thread hosts nothing but PGlite, so its
// decoders keep the mark (PGlite is imported below, after the change).
globalThis.TextDecoder = class TextDecoderKeepingByteOrderMarks extends TextDecoder {
  constructor(label, options) {
    super(label, { ...options, ignoreBOM: true });
  }
};
const { PGlite } = await import('@electric-sql/pglite');

// Start-up runs much of Postgres's code once: by default V8 recompiles every function that
// ran a little with its optimising compiler, on a background thread, most of the CPU and
// a good part of the memory of a short command (which exits before that code pays off).
// A larger budget leaves that to the code a long command keeps running. (The setting is
// the process's; nothing else in assay runs WebAssembly.) Must precede the compilation.
setFlagsFromString('--wasm-tiering-budget=180000000'); // 100 times V8's default

// Postgres's shared buffers are touched in full at start-up (PGlite's default, 160 MB,
// became 160 MB of resident memory in every process). One session of one process needs
// far less; the operating system's file cache keeps the rest of the data close.
const SHARED_BUFFERS = '32MB';

/** PostgreSQL type OIDs assay parses or serialises specially. */
const INT8_OID = 20;
const JSON_OID = 114;
const JSONB_OID = 3802;

const json = (value) => JSON.stringify(value);

/** An error as plain data: message, name and the SQLSTATE fields PGlite sets. */
function errorData(error) {
  const data = { message: String(error?.message ?? error), name: error?.name ?? 'Error' };
  if (error && typeof error === 'object') {
    for (const [key, value] of Object.entries(error)) {
      if (typeof value === 'string' || typeof value === 'number') data[key] = value;
    }
  }
  return data;
}

/** What the main thread needs of a result: rows, the command tag and the affected rows. */
function plain(result) {
  if (!result) return undefined;
  const out = { rows: result.rows, fields: result.fields };
  if (result.affectedRows !== undefined) out.affectedRows = result.affectedRows;
  // PGlite keeps the command tag on the parsed result when it has one.
  if (result.command !== undefined) out.command = result.command;
  if (result.rowCount !== undefined) out.rowCount = result.rowCount;
  return out;
}

let pglite;
try {
  pglite = new PGlite(workerData.dataDir, {
    parsers: { [INT8_OID]: (value) => Number(value) },
    // PGlite passes strings bound to json/jsonb through unencoded; postgres.js encodes
    // every value. Encode always so both engines store the same thing.
    serializers: { [JSON_OID]: json, [JSONB_OID]: json },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
    ...(workerData.template ? { loadDataDir: new Blob([readFileSync(workerData.template)]) } : {}),
  });
  await pglite.waitReady;
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: errorData(error) });
  process.exit(1);
}

parentPort.on('message', async (message) => {
  const { id, kind } = message;
  try {
    if (kind === 'query') {
      parentPort.postMessage({
        id,
        result: plain(
          await pglite.query(
            message.sql,
            message.params,
            message.blob ? { blob: new Blob([message.blob]) } : undefined,
          ),
        ),
      });
    } else if (kind === 'exec') {
      const results = await pglite.exec(message.sql);
      parentPort.postMessage({ id, result: results.map(plain) });
    } else if (kind === 'protocol') {
      // Raw wire-protocol messages of a client sharing the session (pglite-socket.ts). The
      // reply is a view of PGlite's reused buffer: copy it before handing it over.
      const reply = (await pglite.execProtocolRaw(message.bytes)).slice();
      parentPort.postMessage({ id, result: reply }, [reply.buffer]);
    } else if (kind === 'dump') {
      const blob = await pglite.dumpDataDir('gzip');
      const bytes = new Uint8Array(await blob.arrayBuffer());
      parentPort.postMessage({ id, result: bytes }, [bytes.buffer]);
    } else if (kind === 'close') {
      await pglite.close();
      parentPort.postMessage({ id, result: null });
      parentPort.close();
    }
  } catch (error) {
    parentPort.postMessage({ id, error: errorData(error) });
  }
});
