// The peers' side of the comparison (bench/peers/run.sh): LanceDB, Orama,
// usearch and SQLite FTS5 in this process, and engram over HTTP, on the rows
// and vectors `peer_tool data` wrote to WORK.
//
//   node peers.mjs WORK ROUND PORT SERVER_PID
//
// Every library indexes each row's content and engram's vector of it; every
// query is asked in its own scope, 100 results deep, with engram's vector of
// the query. Queries are taken in order and, for each, every system in turn,
// the order rotating from query to query, so that what the machine does
// meanwhile falls on all alike. Per system it writes WORK/runs/NAME.run (a
// TREC run, rank-derived scores, ROUND 1 only) and WORK/times/NAME.ROUND.tsv:
// each query's wall ms and CPU ms. CPU is this process's (all its threads,
// LanceDB's included) for the libraries, and the server's (from
// /proc/SERVER_PID/stat, in clock ticks) for engram over HTTP.
//
// Settings, chosen to give each library its best shot at this task:
// - SQLite FTS5: the porter stemmer over unicode61, bm25() with its
//   defaults, the query's words OR-ed (each occurrence counted).
// - LanceDB: a full-text index with English stemming, stop words and lower
//   case; exact vector search by dot product (no vector index at these
//   sizes); hybrid is its full-text and vector results fused by its RRF
//   reranker.
// - Orama: English stemming; full-text BM25 with threshold 1 (any word may
//   match, as BM25 ranks); vector and hybrid with similarity 0 (Orama's
//   default floor of 0.8 drops most relevant rows of this model).
// - usearch: an HNSW index per scope, inner product, its defaults.
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const [work, roundText, port, serverPid] = process.argv.slice(2);
const round = Number(roundText);
const require = createRequire(`${process.env.PEERS_MODULES}/`);
const Database = require('better-sqlite3');
const usearch = require('usearch');
const lancedb = await import(require.resolve('@lancedb/lancedb'));
const orama = await import(require.resolve('@orama/orama'));

const DEPTH = 100;

function readJsonl(path) {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
}
function readVectors(path, count) {
  const bytes = readFileSync(path);
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const dim = all.length / count;
  return { dim, row: (i) => all.subarray(i * dim, (i + 1) * dim) };
}

const docs = readJsonl(`${work}/docs.jsonl`);
const queries = readJsonl(`${work}/queries.jsonl`);
const docVectors = readVectors(`${work}/docs.f32`, docs.length);
const queryVectors = readVectors(`${work}/queries.f32`, queries.length);
const dim = docVectors.dim;

// SQLite FTS5 ------------------------------------------------------------
function sqliteFts5() {
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE docs USING fts5(content, scope UNINDEXED, tokenize='porter unicode61')");
  const insert = db.prepare('INSERT INTO docs(rowid, content, scope) VALUES (?, ?, ?)');
  db.transaction(() => docs.forEach((d, i) => insert.run(i + 1, d.content, d.scope)))();
  const select = db.prepare(
    `SELECT rowid FROM docs WHERE docs MATCH ? AND scope = ? ORDER BY bm25(docs) LIMIT ${DEPTH}`);
  return {
    name: 'sqlite-fts5-bm25',
    search: async (q) => {
      const words = q.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      if (words.length === 0) return [];
      const match = words.map((w) => `"${w}"`).join(' OR ');
      return select.all(match, q.scope).map((r) => docs[r.rowid - 1].id);
    },
  };
}

// LanceDB ----------------------------------------------------------------
async function lanceDb() {
  const db = await lancedb.connect(`${work}/lancedb`);
  const rows = docs.map((d, i) => ({
    row: i, scope: d.scope, content: d.content, vector: Array.from(docVectors.row(i)),
  }));
  const table = await db.createTable('docs', rows, { mode: 'overwrite' });
  await table.createIndex('content', {
    config: lancedb.Index.fts({ stem: true, language: 'English', removeStopWords: true, lowercase: true }),
  });
  const rrf = await lancedb.rerankers.RRFReranker.create();
  const where = (q) => `scope = '${q.scope.replaceAll("'", "''")}'`;
  const ids = (rows) => rows.map((r) => docs[r.row].id);
  return [
    {
      name: 'lancedb-fts',
      search: async (q) => ids(await table.query().fullTextSearch(q.text).where(where(q))
        .select(['row']).limit(DEPTH).toArray()),
    },
    {
      name: 'lancedb-vector',
      search: async (q) => ids(await table.query().nearestTo(queryVectors.row(q.index))
        .distanceType('dot').where(where(q)).select(['row']).limit(DEPTH).toArray()),
    },
    {
      name: 'lancedb-hybrid-rrf',
      search: async (q) => ids(await table.query().fullTextSearch(q.text)
        .nearestTo(queryVectors.row(q.index)).distanceType('dot').where(where(q))
        .rerank(rrf).select(['row']).limit(DEPTH).toArray()),
    },
  ];
}

// Orama ------------------------------------------------------------------
async function oramaDb() {
  const db = await orama.create({
    schema: { row: 'number', scope: 'enum', content: 'string', embedding: `vector[${dim}]` },
    components: { tokenizer: { language: 'english', stemming: true } },
  });
  await orama.insertMultiple(db, docs.map((d, i) => ({
    row: i, scope: d.scope, content: d.content, embedding: Array.from(docVectors.row(i)),
  })));
  const common = (q) => ({ where: { scope: { eq: q.scope } }, limit: DEPTH });
  const vector = (q) => ({ value: Array.from(queryVectors.row(q.index)), property: 'embedding' });
  const ids = (result) => result.hits.map((h) => docs[h.document.row].id);
  return [
    {
      name: 'orama-fulltext',
      search: async (q) => ids(await orama.search(db, {
        term: q.text, properties: ['content'], threshold: 1, ...common(q),
      })),
    },
    {
      name: 'orama-vector',
      search: async (q) => ids(await orama.search(db, {
        mode: 'vector', vector: vector(q), similarity: 0, ...common(q),
      })),
    },
    {
      name: 'orama-hybrid',
      search: async (q) => ids(await orama.search(db, {
        mode: 'hybrid', term: q.text, properties: ['content'], vector: vector(q), similarity: 0,
        threshold: 1, ...common(q),
      })),
    },
  ];
}

// usearch ----------------------------------------------------------------
function usearchIndex() {
  const byScope = new Map();
  docs.forEach((d, i) => {
    if (!byScope.has(d.scope)) byScope.set(d.scope, []);
    byScope.get(d.scope).push(i);
  });
  const indexes = new Map();
  for (const [scope, rows] of byScope) {
    const index = new usearch.Index({ metric: 'ip', dimensions: dim, connectivity: 16 });
    const vectors = new Float32Array(rows.length * dim);
    rows.forEach((r, j) => vectors.set(docVectors.row(r), j * dim));
    index.add(BigUint64Array.from(rows, (r) => BigInt(r)), vectors);
    indexes.set(scope, { index, size: rows.length });
  }
  return {
    name: 'usearch-hnsw',
    search: async (q) => {
      const scoped = indexes.get(q.scope);
      if (!scoped) return [];
      const found = scoped.index.search(queryVectors.row(q.index), Math.min(DEPTH, scoped.size));
      return Array.from(found.keys, (k) => docs[Number(k)].id);
    },
  };
}

// engram over HTTP ---------------------------------------------------------
function serverCpuMs() {
  const fields = readFileSync(`/proc/${serverPid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;  // utime + stime, in 100 Hz ticks
}
function engramHttp(mode) {
  const rowsOf = new Map();
  for (const d of docs) {
    const key = `${d.scope}\n${d.fact_id}`;
    if (!rowsOf.has(key)) rowsOf.set(key, []);
    rowsOf.get(key).push(d.id);
  }
  return {
    name: `engram-http-${mode}`,
    serverCpu: true,
    search: async (q) => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: q.text, scope: q.scope, mode, k: DEPTH, record: false }),
      });
      if (!response.ok) throw new Error(`engram: ${response.status} ${await response.text()}`);
      const body = await response.json();
      return body.hits.flatMap((h) => rowsOf.get(`${h.fact.scope}\n${h.fact.id}`) ?? []).slice(0, DEPTH);
    },
  };
}

// The run ------------------------------------------------------------------
const systems = [
  sqliteFts5(), ...(await lanceDb()), ...(await oramaDb()), usearchIndex(),
  engramHttp('lexical'), engramHttp('semantic'), engramHttp('blended'),
];
queries.forEach((q, i) => { q.index = i; });
const runs = new Map(systems.map((s) => [s.name, []]));
const times = new Map(systems.map((s) => [s.name, []]));
for (let i = 0; i < queries.length; ++i) {
  const q = queries[i];
  for (let j = 0; j < systems.length; ++j) {
    const system = systems[(i + j) % systems.length];
    const cpuBefore = system.serverCpu ? serverCpuMs() : process.cpuUsage();
    const wallBefore = performance.now();
    const ids = await system.search(q);
    const wall = performance.now() - wallBefore;
    let cpu;
    if (system.serverCpu) {
      cpu = serverCpuMs() - cpuBefore;
    } else {
      const used = process.cpuUsage(cpuBefore);
      cpu = (used.user + used.system) / 1000;
    }
    times.get(system.name).push(`${wall}\t${cpu}`);
    runs.get(system.name).push(
      ...[...new Set(ids)].slice(0, DEPTH).map((id, rank) =>
        `${q.id} Q0 ${id} ${rank + 1} ${DEPTH - rank} ${system.name}`));
  }
  if ((i + 1) % 100 === 0) process.stderr.write(`peers: round ${round}: ${i + 1} queries\n`);
}
mkdirSync(`${work}/runs`, { recursive: true });
mkdirSync(`${work}/times`, { recursive: true });
for (const system of systems) {
  if (round === 1) writeFileSync(`${work}/runs/${system.name}.run`, runs.get(system.name).join('\n') + '\n');
  writeFileSync(`${work}/times/${system.name}.${round}.tsv`, times.get(system.name).join('\n') + '\n');
}
