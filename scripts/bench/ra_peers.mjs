// ra_peers.mjs - the peers of scripts/bench/random_access: LanceDB's take and
// DuckDB on Parquet, for the same ids.
//
//   node ra_peers.mjs lance-build CSV DIR      CSV (id,caption) -> a Lance table (DIR may be
//                                              s3://bucket/path: AWS_* environment)
//   node ra_peers.mjs lance-take DIR IDS       takeOffsets(ids): ms of the first call
//                                              (connect + open + take) and the best of 3 more;
//                                              bytes read from disk by a take once
//                                              the table's files left the page cache
//   node ra_peers.mjs lance-take-s3 URI IDS [once]
//                                              the same from s3://bucket/path: first and best
//                                              of 3 (with "once": the first call only)
//   node ra_peers.mjs parquet CSV OUT          CSV -> Parquet (zstd, DuckDB's defaults)
//   node ra_peers.mjs duck-take OUT IDS        SELECT * WHERE id IN (ids): first and best of 3
//   node ra_peers.mjs parquet-wide CSV OUT     CSV (id, caption, f0..f19 float32) -> Parquet (zstd)
//   node ra_peers.mjs rewrite IN IDS OUT       the whole file rewritten without the rows in IDS, fsynced
//   node ra_peers.mjs duck-jsonl PQ OUT        every row as JSON Lines (COPY ... TO OUT (FORMAT json)):
//                                              ms of the first run (connect included) and the best of 2 more
// Each prints one JSON line. Row ids are offsets: the tables are written in id order.
import * as lancedb from '@lancedb/lancedb';
import { tableFromArrays } from 'apache-arrow';
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [cmd, a, b] = process.argv.slice(2);
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
// Bytes this process has read from disk so far (all its threads). A library's
// code paged in on first use counts too (LanceDB's is ~100 MB), so a take's own
// reads are counted on a later take, after the table's files (only) have been
// dropped from the page cache (evict): what the take itself costs the disk.
const diskRead = () => Number(/read_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))[1]);
const evict = (path) =>
  execFileSync('/usr/bin/python3', ['-c', `
import os, sys
for root, _, files in os.walk(sys.argv[1]) if os.path.isdir(sys.argv[1]) else [('', None, [sys.argv[1]])]:
    for f in files:
        fd = os.open(os.path.join(root, f), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)`, path]);
async function coldBytes(path, take) {
  evict(path);
  const rb0 = diskRead();
  await take();
  return diskRead() - rb0;
}
const ids = (f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map(Number);

// An s3://bucket/path DIR (scripts/bench/s3) is reached as the AWS tools would
// reach it: the endpoint and keys from the environment.
const s3Options = () => ({
  storageOptions: {
    aws_endpoint: process.env.AWS_ENDPOINT_URL,
    aws_access_key_id: process.env.AWS_ACCESS_KEY_ID,
    aws_secret_access_key: process.env.AWS_SECRET_ACCESS_KEY,
    aws_region: process.env.AWS_REGION || 'us-east-1',
    allow_http: 'true',
  },
});

async function lanceBuild(csv, dir) {
  const db = await lancedb.connect(dir, dir.startsWith('s3://') ? s3Options() : {});
  const rl = createInterface({ input: createReadStream(csv), crlfDelay: Infinity });
  let idv = [], cap = [], tbl = null, header = true;
  const flush = async () => {
    if (!idv.length) return;
    const t = tableFromArrays({ id: BigInt64Array.from(idv), caption: cap });
    if (!tbl) tbl = await db.createTable('t', t, { mode: 'overwrite' });
    else await tbl.add(t);
    idv = []; cap = [];
  };
  for await (const line of rl) {
    if (header) { header = false; continue; }
    const k = line.indexOf(',');
    idv.push(BigInt(line.slice(0, k)));
    cap.push(line.slice(k + 1));
    if (idv.length === 200000) await flush();
  }
  await flush();
  console.log(JSON.stringify({ rows: await tbl.countRows() }));
}

async function lanceTake(dir, f) {
  const offs = ids(f);
  const t0 = process.hrtime.bigint();
  const db = await lancedb.connect(dir);
  const tbl = await db.openTable('t');
  let n = (await tbl.takeOffsets(offs).toArrow()).numRows;
  const first = ms(t0);
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t1 = process.hrtime.bigint();
    n = (await tbl.takeOffsets(offs).toArrow()).numRows;
    best = Math.min(best, ms(t1));
  }
  const read = await coldBytes(dir, () => tbl.takeOffsets(offs).toArrow());
  console.log(JSON.stringify({ first_ms: first, warm_ms: best, rows: n, read_bytes: read }));
}

// The same take from a table in a bucket: no page cache to drop, so no disk
// bytes (scripts/bench/s3 counts what the endpoint sent); with "once" only the
// first call (connect + open + take), what one new reader fetches.
async function lanceTakeS3(uri, f, once) {
  const offs = ids(f);
  const t0 = process.hrtime.bigint();
  const db = await lancedb.connect(uri, s3Options());
  const tbl = await db.openTable('t');
  let n = (await tbl.takeOffsets(offs).toArrow()).numRows;
  const first = ms(t0);
  let best = Infinity;
  for (let r = 0; r < (once === 'once' ? 0 : 3); r++) {
    const t1 = process.hrtime.bigint();
    n = (await tbl.takeOffsets(offs).toArrow()).numRows;
    best = Math.min(best, ms(t1));
  }
  console.log(JSON.stringify({ first_ms: first, warm_ms: best, rows: n }));
}

async function parquet(csv, out) {
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  await c.run(`COPY (SELECT * FROM read_csv('${csv}', header = true, columns = {'id': 'BIGINT', 'caption': 'VARCHAR'}))
               TO '${out}' (FORMAT parquet, COMPRESSION zstd)`);
  console.log(JSON.stringify({ ok: true }));
}

async function duckTake(pq, f) {
  const list = ids(f).join(',');
  const sql = `SELECT * FROM read_parquet('${pq}') WHERE id IN (${list})`;
  const t0 = process.hrtime.bigint();
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  let n = (await (await c.run(sql)).getRows()).length;
  const first = ms(t0);
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t1 = process.hrtime.bigint();
    n = (await (await c.run(sql)).getRows()).length;
    best = Math.min(best, ms(t1));
  }
  const read = await coldBytes(pq, async () => (await c.run(sql)).getRows());
  console.log(JSON.stringify({ first_ms: first, warm_ms: best, rows: n, read_bytes: read }));
}

async function parquetWide(csv, out) {
  const cols = ["'id': 'BIGINT'", "'caption': 'VARCHAR'"];
  for (let k = 0; k < 20; k++) cols.push(`'f${k}': 'FLOAT'`);
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  await c.run(`COPY (SELECT * FROM read_csv('${csv}', header = true, columns = {${cols.join(', ')}}))
               TO '${out}' (FORMAT parquet, COMPRESSION zstd)`);
  console.log(JSON.stringify({ ok: true }));
}

async function rewrite(pq, f, out) {
  const { openSync, fsyncSync, closeSync, statSync } = await import('node:fs');
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  const t0 = process.hrtime.bigint();
  await c.run(`CREATE TEMP TABLE gone AS SELECT column0::BIGINT AS id FROM read_csv('${f}', header = false)`);
  await c.run(`COPY (SELECT * FROM read_parquet('${pq}') WHERE id NOT IN (SELECT id FROM gone))
               TO '${out}' (FORMAT parquet, COMPRESSION zstd)`);
  const fd = openSync(out, 'r+'); fsyncSync(fd); closeSync(fd);
  console.log(JSON.stringify({ ms: ms(t0), bytes: statSync(out).size }));
}

async function duckJsonl(pq, out) {
  const sql = `COPY (SELECT * FROM read_parquet('${pq}')) TO '${out}' (FORMAT json)`;
  const t0 = process.hrtime.bigint();
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  await c.run(sql);
  const first = ms(t0);
  let best = Infinity;
  for (let r = 0; r < 2; r++) {
    const t1 = process.hrtime.bigint();
    await c.run(sql);
    best = Math.min(best, ms(t1));
  }
  console.log(JSON.stringify({ first_ms: first, warm_ms: best }));
}

if (cmd === 'parquet-wide') await parquetWide(a, b);
else if (cmd === 'duck-jsonl') await duckJsonl(a, b);
else if (cmd === 'rewrite') await rewrite(a, b, process.argv[5]);
else if (cmd === 'lance-build') await lanceBuild(a, b);
else if (cmd === 'lance-take') await lanceTake(a, b);
else if (cmd === 'lance-take-s3') await lanceTakeS3(a, b, process.argv[5]);
else if (cmd === 'parquet') await parquet(a, b);
else if (cmd === 'duck-take') await duckTake(a, b);
else { console.error('usage: see the head of ra_peers.mjs'); process.exit(2); }
