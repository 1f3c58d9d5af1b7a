// nested_lance.mjs - the Lance side of the nested benchmarks (LanceDB for Node):
// sparse_sequences, wide_nested, embeddings. Install: npm install --prefix
// scripts/bench/lance (package.json pins the versions).
//
//   node nested_lance.mjs seq-create JSONL DBDIR [--only-clk] [--zstd]
//       Tables from the sparse-sequence JSON Lines: 'seq' (user int64, ts int64,
//       clk list<int64>), or with --only-clk 'clk' (clk alone, to size the column).
//       --zstd sets the field metadata lance-encoding:compression=zstd on clk.
//       Arrow columns are built directly (typed arrays, no per-value objects).
//   node nested_lance.mjs emb-create F32 ROWS DIM DBDIR
//       Table 'emb' (id int64, emb fixed_size_list<float32, DIM>) from raw float32
//       rows (nested_gen emb ... OUT.f32), added in batches of 65,536 rows.
//   node nested_lance.mjs wide-create JSONL COLUMNS DBDIR
//       Table 'wide' from the wide JSON Lines; COLUMNS is nested_gen's DuckDB column
//       list (name, DuckDB type, kind), mapped to Arrow types (b64 strings become
//       binary). One write of all rows.
//   node nested_lance.mjs scan DBDIR TABLE COLUMN [--warm N]
//       Read one whole column: table.query().select([COLUMN]) streamed batch by
//       batch (every batch decoded into Arrow memory, nothing kept). One untimed
//       run, then N (default 3) timed. Prints warm n=.. secs_med=.. secs_min=..
//       secs_max=.. cpu_med=.. rows=.. values=.. (list elements or rows x D)
//   node nested_lance.mjs openread DBDIR TABLE COLUMN [--warm N]
//       Open the table and read one whole (small) column, materialised with
//       toArrow(): one untimed openTable + query, then N timed (one connection
//       for all runs), then N times the query alone on the last table opened. Prints
//       warm n=.. total_med=.. total_p10=.. total_p90=.. query_med=.. (µs)
//   node nested_lance.mjs size DBDIR
//       Bytes of every file under DBDIR and the data storage version of the
//       latest data file: bytes=.. files=.. version=..
//
// Lance decodes with its own thread pools (one per core by default); times are
// wall clock and include the Node binding's async round trips.
import * as lancedb from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { createReadStream, openSync, readSync, closeSync, readdirSync, statSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const flag = (name) => args.includes(name);
const pos = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--') && !['--only-clk', '--zstd'].includes(args[i - 1])));
const nowUs = () => Number(process.hrtime.bigint()) / 1e3;
function pct(v, p) {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.round(p * (s.length - 1))];
}

const i64 = () => new arrow.Int64();
const listOf = (t, nullable = true, md) => new arrow.List(new arrow.Field('item', t, nullable, md));

// Arrow data for a list<int64> column from row arrays (no NULL rows here).
function int64ListData(rows) {
  let n = 0;
  for (const r of rows) n += r.length;
  const vals = new BigInt64Array(n);
  const offs = new Int32Array(rows.length + 1);
  let k = 0;
  rows.forEach((r, i) => {
    for (const x of r) vals[k++] = BigInt(x);
    offs[i + 1] = k;
  });
  const child = arrow.makeData({ type: i64(), length: n, data: vals });
  return arrow.makeData({ type: listOf(i64(), false, LEAF_MD), length: rows.length, nullCount: 0, valueOffsets: offs, child });
}
let LEAF_MD; // field metadata of list leaves (seq-create --zstd)
const int64Data = (a) => arrow.makeData({ type: i64(), length: a.length, data: BigInt64Array.from(a, (x) => BigInt(x)) });

function batchOf(fields, datas) {
  const schema = new arrow.Schema(fields);
  const st = arrow.makeData({ type: new arrow.Struct(fields), length: datas[0].length, nullCount: 0, children: datas });
  return new arrow.RecordBatch(schema, st);
}

async function seqCreate() {
  const [, jsonl, dbdir] = pos;
  const only = flag('--only-clk');
  const users = [], ts = [], clk = [];
  const rl = createInterface({ input: createReadStream(jsonl), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line) continue;
    const o = JSON.parse(line);
    users.push(o.user);
    ts.push(o.ts);
    clk.push(o.clk);
  }
  // --zstd: ask Lance to compress the column's values with zstd (field metadata)
  const md = flag('--zstd') ? new Map([['lance-encoding:compression', 'zstd']]) : undefined;
  LEAF_MD = md;
  const fClk = new arrow.Field('clk', listOf(i64(), false, md), false); // on the leaf, where Lance reads it
  const fields = only ? [fClk] : [new arrow.Field('user', i64(), false), new arrow.Field('ts', i64(), false), fClk];
  const batches = [];
  const B = 20000;
  for (let i = 0; i < clk.length; i += B) {
    const c = int64ListData(clk.slice(i, i + B));
    batches.push(batchOf(fields, only ? [c] : [int64Data(users.slice(i, i + B)), int64Data(ts.slice(i, i + B)), c]));
  }
  const table = new arrow.Table(batches);
  const db = await lancedb.connect(dbdir);
  const t0 = nowUs();
  const sv = opt('--storage-version');
  const tbl = await db.createTable(only ? 'clk' : 'seq', table,
    { mode: 'overwrite', ...(sv ? { storageOptions: { new_table_data_storage_version: sv } } : {}) });
  console.log(JSON.stringify({ secs: (nowUs() - t0) / 1e6, rows: await tbl.countRows() }));
}

async function embCreate() {
  const [, f32, nrows, dim, dbdir] = pos;
  const rows = +nrows, D = +dim, B = 65536;
  const fields = [new arrow.Field('id', i64(), false),
    new arrow.Field('emb', new arrow.FixedSizeList(D, new arrow.Field('item', new arrow.Float32(), false)), false)];
  const schema = new arrow.Schema(fields);
  const db = await lancedb.connect(dbdir);
  const fd = openSync(f32, 'r');
  const t0 = nowUs();
  let tbl = null;
  for (let r0 = 0; r0 < rows; r0 += B) {
    const n = Math.min(B, rows - r0);
    const buf = Buffer.allocUnsafe(n * D * 4);
    let got = 0;
    while (got < buf.length) {
      const k = readSync(fd, buf, got, buf.length - got, (r0 * D * 4) + got);
      if (k <= 0) throw new Error('short read');
      got += k;
    }
    const vals = new Float32Array(buf.buffer, buf.byteOffset, n * D);
    const child = arrow.makeData({ type: new arrow.Float32(), length: n * D, data: vals });
    const emb = arrow.makeData({ type: fields[1].type, length: n, nullCount: 0, child });
    const ids = arrow.makeData({ type: i64(), length: n, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(r0 + i)) });
    const t = new arrow.Table([batchOf(fields, [ids, emb])]);
    if (!tbl) tbl = await db.createTable('emb', t, { mode: 'overwrite', schema });
    else await tbl.add(t);
  }
  closeSync(fd);
  console.log(JSON.stringify({ secs: (nowUs() - t0) / 1e6, rows: await tbl.countRows() }));
}

// DuckDB type text -> Arrow type (and how to convert a JSON value to it)
function parseDuck(t, b64) {
  t = t.trim();
  if (t.endsWith('[]')) {
    const inner = parseDuck(t.slice(0, -2), b64);
    return { type: listOf(inner.type), conv: (v) => (v == null ? null : v.map(inner.conv)) };
  }
  const m = /^STRUCT\((.*)\)$/.exec(t);
  if (m) {
    const parts = m[1].split(/,\s*(?![^()]*\))/).map((f) => {
      const [name, ...rest] = f.trim().split(/\s+/);
      return [name, parseDuck(rest.join(' '), b64)];
    });
    const type = new arrow.Struct(parts.map(([n, p]) => new arrow.Field(n, p.type, true)));
    return {
      type, conv: (v) => {
        if (v == null) return null;
        const o = {};
        for (const [n, p] of parts) o[n] = p.conv(v[n]);
        return o;
      },
    };
  }
  switch (t) {
    case 'BIGINT': return { type: i64(), conv: (v) => (v == null ? null : BigInt(v)) };
    case 'FLOAT': return { type: new arrow.Float32(), conv: (v) => v };
    case 'DOUBLE': return { type: new arrow.Float64(), conv: (v) => v };
    case 'VARCHAR':
      return b64 ? { type: new arrow.Binary(), conv: (v) => (v == null ? null : Buffer.from(v, 'base64')) }
        : { type: new arrow.Utf8(), conv: (v) => v };
    default: throw new Error(`type ${t}`);
  }
}

async function wideCreate() {
  const [, jsonl, colfile, dbdir] = pos;
  const cols = readFileSync(colfile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => {
    const [name, type, kind] = l.split('\t');
    return { name, ...parseDuck(type, kind === 'b64') };
  });
  const data = cols.map(() => []);
  const rl = createInterface({ input: createReadStream(jsonl), crlfDelay: Infinity });
  let rows = 0;
  for await (const line of rl) {
    if (!line) continue;
    const o = JSON.parse(line);
    cols.forEach((c, i) => data[i].push(c.conv(o[c.name] ?? null)));
    rows++;
  }
  const fields = cols.map((c) => new arrow.Field(c.name, c.type, c.name !== 'id'));
  const vecs = cols.map((c, i) => arrow.vectorFromArray(data[i], c.type));
  const st = arrow.makeData({ type: new arrow.Struct(fields), length: rows, nullCount: 0, children: vecs.map((v) => v.data[0]) });
  const table = new arrow.Table([new arrow.RecordBatch(new arrow.Schema(fields), st)]);
  const db = await lancedb.connect(dbdir);
  const t0 = nowUs();
  const tbl = await db.createTable('wide', table, { mode: 'overwrite' });
  console.log(JSON.stringify({ secs: (nowUs() - t0) / 1e6, rows: await tbl.countRows(), columns: fields.length }));
}

function countValues(col) {
  // list elements (or fixed-size-list values) in an Arrow vector
  let n = 0;
  for (const d of col.data) {
    // by type id: the batches come from LanceDB's own apache-arrow instance
    if (d.typeId === arrow.Type.List) n += d.valueOffsets[d.offset + d.length] - d.valueOffsets[d.offset];
    else if (d.typeId === arrow.Type.FixedSizeList) n += d.length * d.type.listSize;
    else n += d.length;
  }
  return n;
}

async function scan() {
  const [, dbdir, name, col] = pos;
  const warm = +opt('--warm', 3);
  const db = await lancedb.connect(dbdir);
  const tbl = await db.openTable(name);
  const once = async () => {
    const cpu0 = process.cpuUsage();
    const t0 = nowUs();
    let rows = 0, values = 0;
    for await (const b of tbl.query().select([col])) {
      rows += b.numRows;
      values += countValues(b.getChild(col));
    }
    const cpu = process.cpuUsage(cpu0);
    return { secs: (nowUs() - t0) / 1e6, cpu: (cpu.user + cpu.system) / 1e6, rows, values };
  };
  const first = await once();
  const s = [];
  for (let i = 0; i < warm; i++) s.push(await once());
  const secs = s.map((x) => x.secs);
  console.log(`warm n=${s.length} secs_med=${pct(secs, 0.5).toFixed(4)} secs_min=${pct(secs, 0).toFixed(4)} ` +
    `secs_max=${pct(secs, 1).toFixed(4)} cpu_med=${pct(s.map((x) => x.cpu), 0.5).toFixed(4)} rows=${first.rows} values=${first.values}`);
}

async function openread() {
  const [, dbdir, name, col] = pos;
  const warm = +opt('--warm', 50);
  const db = await lancedb.connect(dbdir);
  const query = async (tbl) => {
    const t0 = nowUs();
    const r = await tbl.query().select([col]).toArrow();
    return { us: nowUs() - t0, rows: r.numRows };
  };
  const openQuery = async () => {
    const t0 = nowUs();
    const tbl = await db.openTable(name);
    const r = await query(tbl);
    return { us: nowUs() - t0, rows: r.rows, tbl };
  };
  let last = await openQuery(); // untimed: warms the page cache
  const s = [];
  for (let i = 0; i < warm; i++) s.push(last = await openQuery());
  const q = [];
  for (let i = 0; i < warm; i++) q.push(await query(last.tbl)); // the table kept open
  const t = s.map((x) => x.us);
  console.log(`warm n=${s.length} total_med=${pct(t, 0.5).toFixed(1)} total_p10=${pct(t, 0.1).toFixed(1)} ` +
    `total_p90=${pct(t, 0.9).toFixed(1)} query_med=${pct(q.map((x) => x.us), 0.5).toFixed(1)} rows=${s[0].rows}`);
}

function size() {
  const [, dbdir] = pos;
  let bytes = 0, files = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else { bytes += statSync(p).size; files++; }
    }
  };
  walk(dbdir);
  // the data storage version: a Lance v2 file ends with major u16, minor u16, "LANC"
  let version = '?';
  const dataFiles = [];
  const find = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) find(p);
      else if (p.endsWith('.lance')) dataFiles.push(p);
    }
  };
  find(dbdir);
  if (dataFiles.length) {
    const fd = openSync(dataFiles[0], 'r');
    const sz = statSync(dataFiles[0]).size;
    const b = Buffer.alloc(8);
    readSync(fd, b, 0, 8, sz - 8);
    closeSync(fd);
    if (b.toString('latin1', 4, 8) === 'LANC') version = `${b.readUInt16LE(0)}.${b.readUInt16LE(2)}`;
  }
  console.log(`bytes=${bytes} files=${files} version=${version}`);
}

const [cmd] = pos;
const cmds = { 'seq-create': seqCreate, 'emb-create': embCreate, 'wide-create': wideCreate, scan, openread, size };
if (!cmds[cmd]) {
  console.error('usage: node nested_lance.mjs seq-create|emb-create|wide-create|scan|openread|size ... (see the header)');
  process.exit(2);
}
await cmds[cmd]();
