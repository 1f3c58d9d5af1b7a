// evolve_peers.mjs - the peers of scripts/bench/evolve: a column added to (or
// renamed in) a table by DuckDB (the Parquet file rewritten with it) and by
// LanceDB (the dataset's own add-column and alter-column paths).
//
//   node evolve_peers.mjs lance-build CSV DIR
//       CSV (id, caption, f0..f19) -> a Lance table 't' in DIR (LanceDB's defaults)
//   node evolve_peers.mjs duck-src GLOB OUT.parquet
//       the Parquet files of GLOB (id, then the new columns), in id order, as one
//       uncompressed Parquet file: the new columns' input on DuckDB's side (an
//       uncompressed file, as the .npy ingot reads is raw values); vectors as
//       FLOAT[D]
//   node evolve_peers.mjs duck-add IN.parquet SRC.parquet OUT.parquet COL...
//       COPY (SELECT * FROM IN POSITIONAL JOIN (SELECT COL... FROM SRC)) TO OUT
//       (zstd), then fsync(OUT): the whole table rewritten with the new columns
//       (row k of SRC beside row k of IN, as ingot's add-column aligns them)
//   node evolve_peers.mjs duck-sql SQL
//       the first row of a query's result, as JSON (checks)
//   node evolve_peers.mjs lance-sql DIR NAME=SQL...
//       addColumns([{name, valueSql}]): Lance computes each new column from an
//       SQL expression and writes only its files (no input to read)
//   node evolve_peers.mjs lance-merge DIR [--chunk ROWS] NAME=FILE.npy...
//       the given values: addColumns(nullable fields) (schema only), then
//       mergeInsert('id').whenMatchedUpdateAll() with (id, the columns) read
//       from the .npy files (int64 1-D; float32 2-D as FixedSizeList<float32, D>);
//       --chunk: one merge per ROWS rows (bounds the memory a merge of
//       vectors takes: ~20x the source's bytes in one merge)
//   node evolve_peers.mjs lance-rename DIR FROM TO
//       alterColumns([{path: FROM, rename: TO}]): a new version of the dataset
//       (its manifest), no data file written; then (restore: its own
//       measures) checkout of the version before and restore(): a new version
//       equal to it
//   node evolve_peers.mjs duck-rename IN.parquet OUT.parquet FROM TO
//       COPY (SELECT * RENAME (FROM AS TO) FROM IN) TO OUT (zstd), then
//       fsync(OUT): a Parquet file's names are in its footer, so the file is
//       written again
//
// Lance writes without fsync: the files the operation made are fsynced after
// it (fsync_secs), as ingot's commit and DuckDB's output are durable when they
// return. Each prints one JSON line: secs (the operation), fsync_secs, bytes
// (DuckDB: the output file; Lance: how much the dataset directory grew),
// wchar and write_bytes (this process's /proc/self/io over the operation and
// the fsyncs), cpu_secs (user + system, every thread), and for Lance the
// version made. A fresh instance / connection each run.
import * as lancedb from '@lancedb/lancedb';
import { DuckDBInstance } from '@duckdb/node-api';
import { createRequire } from 'node:module';
import {
  closeSync, createReadStream, fsyncSync, openSync, readdirSync, readFileSync, readSync, statSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

// apache-arrow as LanceDB loads it (CommonJS): its classes are checked with
// instanceof, and the ES module build's are other classes
const { Field, FixedSizeList, Float32, Int64, makeData, makeVector, RecordBatch, Schema, Struct, Table, Utf8,
  vectorFromArray } =
  createRequire(import.meta.url)('apache-arrow');

const DATA = process.env.INGOT_BENCH_DATA || '/var/tmp/ingot-bench';
const DUCK_CONFIG = { temp_directory: `${DATA}/duckdb.tmp` };
const sq = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;
const nowS = () => Number(process.hrtime.bigint()) / 1e9;
function io() {
  const o = {};
  for (const l of readFileSync('/proc/self/io', 'utf8').split('\n')) {
    const m = /^(\w+): (\d+)$/.exec(l);
    if (m) o[m[1]] = Number(m[2]);
  }
  return o;
}
function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}
const treeBytes = (dir) => walk(dir).reduce((s, p) => s + statSync(p).size, 0);
function fsyncFile(p) {
  const fd = openSync(p, 'r');
  fsyncSync(fd);
  closeSync(fd);
}
// What an operation cost: run `op`, then `durable` (the fsyncs), and report.
async function measured(op, durable, extra) {
  const io0 = io(), cpu0 = process.cpuUsage(), t0 = nowS();
  const r = await op();
  const t1 = nowS();
  durable();
  const t2 = nowS(), cpu = process.cpuUsage(cpu0), io1 = io();
  const d = (k) => io1[k] - io0[k];
  return {
    secs: +(t1 - t0).toFixed(4), fsync_secs: +(t2 - t1).toFixed(4),
    wchar: d('wchar'), write_bytes: d('write_bytes'), read_bytes: d('read_bytes'),
    cpu_secs: +((cpu.user + cpu.system) / 1e6).toFixed(3), ...(await extra(r)),
  };
}

// ---- .npy (little-endian, C order; the header says dtype and shape)
function npyOpen(path) {
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(12);
  readSync(fd, head, 0, 12, 0);
  const major = head[6];
  const hlen = major === 1 ? head.readUInt16LE(8) : head.readUInt32LE(8);
  const off = (major === 1 ? 10 : 12) + hlen;
  const h = Buffer.alloc(hlen);
  readSync(fd, h, 0, hlen, major === 1 ? 10 : 12);
  const text = h.toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(text)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(text)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (!['<i8', '<f4'].includes(descr)) throw new Error(`${path}: dtype ${descr} (int64 or float32 wanted)`);
  return { fd, off, descr, rows: shape[0], dim: shape[1] || 0 };
}
function npyRows(n, first, count) {
  const per = n.descr === '<i8' ? 8 : 4 * (n.dim || 1);
  const buf = Buffer.alloc(count * per);
  let got = 0;
  while (got < buf.length) {
    const k = readSync(n.fd, buf, got, buf.length - got, n.off + first * per + got);
    if (k <= 0) throw new Error('short .npy');
    got += k;
  }
  return n.descr === '<i8'
    ? new BigInt64Array(buf.buffer, buf.byteOffset, count)
    : new Float32Array(buf.buffer, buf.byteOffset, count * (n.dim || 1));
}
const vecType = (dim) => new FixedSizeList(dim, new Field('item', new Float32(), true));
function npyVector(n, values, count) {
  if (n.descr === '<i8') return makeData({ type: new Int64(), length: count, data: values });
  if (!n.dim) return makeData({ type: new Float32(), length: count, data: values });
  const child = makeData({ type: new Float32(), length: count * n.dim, data: values });
  return makeData({ type: vecType(n.dim), length: count, child });
}
const npyType = (n) => (n.descr === '<i8' ? new Int64() : n.dim ? vecType(n.dim) : new Float32());

// ---- LanceDB
async function lanceBuild(csv, dir) {
  const db = await lancedb.connect(dir);
  const rl = createInterface({ input: createReadStream(csv), crlfDelay: Infinity });
  const B = 100000;
  const batches = [];
  let ids = [], caps = [], fs = null, n = 0, header = true;
  const flush = () => {
    if (!n) return;
    // explicit types: inferred ones (a dictionary for the strings) differ batch to batch
    const cols = { id: makeVector(BigInt64Array.from(ids)), caption: vectorFromArray(caps, new Utf8()) };
    for (let k = 0; k < 20; k++) cols[`f${k}`] = makeVector(fs[k].subarray(0, n));
    batches.push(...new Table(cols).batches);
    ids = []; caps = []; n = 0;
  };
  for await (const line of rl) {
    if (header) { header = false; continue; }
    if (!n) fs = Array.from({ length: 20 }, () => new Float32Array(B));
    // id,caption,f0..f19: the caption holds no comma (bench data)
    const parts = line.split(',');
    ids.push(BigInt(parts[0]));
    caps.push(parts[1]);
    for (let k = 0; k < 20; k++) fs[k][n] = Number(parts[2 + k]);
    if (++n === B) flush();
  }
  flush();
  const tbl = await db.createTable('t', new Table(batches), { mode: 'overwrite' });
  console.log(JSON.stringify({ rows: await tbl.countRows(), bytes: treeBytes(dir) }));
}

// fsync every file of the dataset written since t0 (Lance does not)
function fsyncNewer(dir, t0ms) {
  for (const p of walk(dir)) if (statSync(p).mtimeMs >= t0ms - 1) fsyncFile(p);
}

async function lanceSql(dir, specs) {
  const before = treeBytes(dir);
  const t0ms = Date.now();
  const transforms = specs.map((s) => {
    const k = s.indexOf('=');
    return { name: s.slice(0, k), valueSql: s.slice(k + 1) };
  });
  const r = await measured(async () => {
    const db = await lancedb.connect(dir);
    const tbl = await db.openTable('t');
    return tbl.addColumns(transforms);
  }, () => fsyncNewer(dir, t0ms), async (res) => ({ bytes: treeBytes(dir) - before, version: res.version }));
  console.log(JSON.stringify(r));
}

async function lanceMerge(dir, args) {
  let chunk = Infinity;
  if (args[0] === '--chunk') { chunk = Number(args[1]); args = args.slice(2); }
  const cols = args.map((s) => {
    const k = s.indexOf('=');
    return { name: s.slice(0, k), npy: npyOpen(s.slice(k + 1)) };
  });
  const rows = cols[0].npy.rows;
  const fields = [new Field('id', new Int64(), true), ...cols.map((c) => new Field(c.name, npyType(c.npy), true))];
  const schema = new Schema(fields);
  // (id, the new columns) of rows [first, first + count), in record batches of 65,536 rows
  const source = (first, count) => {
    const batches = [];
    for (let b = first; b < first + count; b += 65536) {
      const n = Math.min(65536, first + count - b);
      const id = BigInt64Array.from({ length: n }, (_, i) => BigInt(b + i));
      const children = [makeData({ type: new Int64(), length: n, data: id }),
        ...cols.map((c) => npyVector(c.npy, npyRows(c.npy, b, n), n))];
      batches.push(new RecordBatch(schema, makeData({ type: new Struct(fields), length: n, children })));
    }
    return new Table(schema, batches);
  };
  const before = treeBytes(dir);
  const t0ms = Date.now();
  let merges = 0;
  const r = await measured(async () => {
    const db = await lancedb.connect(dir);
    const tbl = await db.openTable('t');
    await tbl.addColumns(cols.map((c) => new Field(c.name, npyType(c.npy), true)));
    let res;
    for (let first = 0; first < rows; first += chunk, merges++)
      res = await tbl.mergeInsert('id').whenMatchedUpdateAll().execute(source(first, Math.min(chunk, rows - first)));
    return res;
  }, () => fsyncNewer(dir, t0ms), async (res) => ({ bytes: treeBytes(dir) - before, version: res.version, merges }));
  console.log(JSON.stringify(r));
}

async function lanceRename(dir, from, to) {
  const before = treeBytes(dir);
  const t0ms = Date.now();
  let v0;
  const r = await measured(async () => {
    const db = await lancedb.connect(dir);
    const tbl = await db.openTable('t');
    v0 = await tbl.version();
    await tbl.alterColumns([{ path: from, rename: to }]);
    return { version: await tbl.version() };
  }, () => fsyncNewer(dir, t0ms), async (res) => ({ bytes: treeBytes(dir) - before, version: res.version }));
  // then the version before restored (checkout + restore: a new version equal to it)
  const before2 = treeBytes(dir);
  const t1ms = Date.now();
  r.restore = await measured(async () => {
    const db = await lancedb.connect(dir);
    const tbl = await db.openTable('t');
    await tbl.checkout(v0);
    await tbl.restore();
    return { version: await tbl.version() };
  }, () => fsyncNewer(dir, t1ms), async (res) => ({ bytes: treeBytes(dir) - before2, version: res.version }));
  console.log(JSON.stringify(r));
}

// ---- DuckDB
async function duckSrc(glob, out) {
  const inst = await DuckDBInstance.create(':memory:', DUCK_CONFIG);
  const c = await inst.connect();
  const desc = await (await c.run(`DESCRIBE SELECT * FROM read_parquet(${sq(glob)})`)).getRowObjects();
  const sel = [];
  for (const d of desc) {
    if (d.column_type === 'FLOAT[]') {
      const dim = Number((await (await c.run(`SELECT len(${ident(d.column_name)}) AS n FROM read_parquet(${sq(glob)}) LIMIT 1`)).getRowObjects())[0].n);
      sel.push(`${ident(d.column_name)}::FLOAT[${dim}] AS ${ident(d.column_name)}`);
    } else sel.push(ident(d.column_name));
  }
  await c.run(`COPY (SELECT ${sel.join(', ')} FROM read_parquet(${sq(glob)})) TO ${sq(out)} ` +
    `(FORMAT parquet, COMPRESSION uncompressed)`);
  console.log(JSON.stringify({ bytes: statSync(out).size }));
}

async function duckAdd(inp, src, out, cols) {
  const inst = await DuckDBInstance.create(':memory:', DUCK_CONFIG);
  const c = await inst.connect();
  const sel = cols.map(ident).join(', ');
  const r = await measured(
    () => c.run(`COPY (SELECT * FROM read_parquet(${sq(inp)}) POSITIONAL JOIN ` +
      `(SELECT ${sel} FROM read_parquet(${sq(src)}))) TO ${sq(out)} (FORMAT parquet, COMPRESSION zstd)`),
    () => fsyncFile(out), async () => ({ bytes: statSync(out).size }));
  console.log(JSON.stringify(r));
}

// a Parquet file's column renamed: the file written again (Parquet keeps names
// in its footer, which a writer does not patch in place)
async function duckRename(inp, out, from, to) {
  const inst = await DuckDBInstance.create(':memory:', DUCK_CONFIG);
  const c = await inst.connect();
  const r = await measured(
    () => c.run(`COPY (SELECT * RENAME (${ident(from)} AS ${ident(to)}) FROM read_parquet(${sq(inp)})) ` +
      `TO ${sq(out)} (FORMAT parquet, COMPRESSION zstd)`),
    () => fsyncFile(out), async () => ({ bytes: statSync(out).size }));
  console.log(JSON.stringify(r));
}

async function duckSql(sql) {
  const inst = await DuckDBInstance.create(':memory:', DUCK_CONFIG);
  const c = await inst.connect();
  const row = (await (await c.run(sql)).getRowObjects())[0];
  console.log(JSON.stringify(row, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

const [cmd, ...a] = process.argv.slice(2);
if (cmd === 'lance-build') await lanceBuild(a[0], a[1]);
else if (cmd === 'lance-sql') await lanceSql(a[0], a.slice(1));
else if (cmd === 'lance-merge') await lanceMerge(a[0], a.slice(1));
else if (cmd === 'duck-src') await duckSrc(a[0], a[1]);
else if (cmd === 'duck-sql') await duckSql(a[0]);
else if (cmd === 'duck-add') await duckAdd(a[0], a[1], a[2], a.slice(3));
else if (cmd === 'lance-rename') await lanceRename(a[0], a[1], a[2]);
else if (cmd === 'duck-rename') await duckRename(a[0], a[1], a[2], a[3]);
else { console.error('usage: see the head of evolve_peers.mjs'); process.exit(2); }
