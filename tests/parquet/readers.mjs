// readers.mjs READER MOUNT REF.parquet [SOURCE.parquet] - independent readers
// read a mounted table's views and must see the same rows, of the same
// types, as a reference file, both ways.
//
//   duckdb     writes REF: the reference rows in the views' column types,
//              from SOURCE (a Parquet file the table was imported from; its
//              columns as ingot stores them: as themselves, or, for the
//              types CONVERTED below lists, as those) or,
//              without one, from the mount's jsonl/G.jsonl (ingot's JSON
//              rendering, parsed by DuckDB); then parquet/G.parquet, all of
//              them, EXCEPT ALL REF and REF EXCEPT ALL them must both be
//              empty, column by column. Prints the views' column types
//              ("name TYPE" lines) for the caller to hold against its own;
//              with SOURCE, each must be SOURCE's, or SOURCE's as CONVERTED
//              maps it.
//   polars     nodejs-polars: each parquet/G.parquet (readParquet) and
//              arrow/G.arrow, read from its bytes (readIPC) and memory-mapped
//              (scanIPC), all of them together equal to REF (readParquet),
//              frameEqual, with REF's dtypes; the Arrow views' dtypes the
//              Parquet views', but where docs/FILESYSTEM.md says they differ
//              (a vector: Array(Float32, D) for List(Float32); a nested
//              column the Arrow view shows as each row's JSON: String).
//   hyparquet  hyparquet: each parquet/G.parquet's rows, together, deep-equal
//              to its reading of REF, and each leaf's physical type and what
//              its annotations mean REF's.
//
// Prints what it compared; exits 1 naming the file, column and row that
// differ.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const [reader, mount, ref, source] = process.argv.slice(2);
const die = (msg) => { console.error(`${reader}: ${msg}`); process.exit(1); };
const groups = (dir, ext) => readdirSync(`${mount}/${dir}`).map((f) => parseInt(f, 10)).sort((a, b) => a - b)
  .map((g) => `${mount}/${dir}/${g}.${ext}`);
const sq = (s) => `'${s.replace(/'/g, "''")}'`;
const id = (s) => `"${s.replace(/"/g, '""')}"`;

// What ingot stores a source type as where the table does not record that
// type (docs/FORMAT.md): its storage; maps as lists of key/value structs. A
// type not listed, or one the views show as the source's, is stored as itself.
const CONVERTED = [
  [/^DATE$/, () => 'INTEGER', (c) => `date_diff('day', DATE '1970-01-01', ${c})::INTEGER`],
  [/^TIMESTAMP$/, () => 'BIGINT', (c) => `epoch_us(${c})::BIGINT`],
  [/^DECIMAL\(.*\)$/, () => 'DOUBLE', (c) => `${c}::DOUBLE`],
  [/^MAP\((.*)\)$/, (t) => { const [k, v] = split(t.slice(4, -1)); return `STRUCT("key" ${k}, "value" ${v})[]`; },
    (c) => `map_entries(${c})`],
];
function split(s) { // MAP(K, V)'s K and V, each possibly nested
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    depth += s[i] === '(' ? 1 : s[i] === ')' ? -1 : 0;
    if (s[i] === ',' && depth === 0) return [s.slice(0, i).trim(), s.slice(i + 1).trim()];
  }
  throw new Error(`MAP(${s})`);
}
const convert = (type) => CONVERTED.find(([re]) => re.test(type));

async function duckdb() {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const rows = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJson();
  const views = groups('parquet', 'parquet');
  await c.run(`CREATE VIEW v AS SELECT * FROM read_parquet([${views.map(sq).join(', ')}])`);
  const types = await rows('SELECT column_name AS n, column_type AS t FROM (DESCRIBE v)');
  let select;
  if (source) {
    const src = await rows(`SELECT column_name AS n, column_type AS t FROM (DESCRIBE SELECT * FROM read_parquet(${sq(source)}))`);
    const shown = new Map(types.map(({ n, t }) => [n, t]));
    const stored = src.map(({ n, t }) => (shown.get(n) !== t && convert(t) ? { n, t: convert(t)[1](t), as: convert(t)[2] } : { n, t }));
    const want = stored.map(({ n, t }) => `${n} ${t}`).join('\n');
    const got = types.map(({ n, t }) => `${n} ${t}`).join('\n');
    if (want !== got) die(`the views' types differ from the source's:\n${got}\nwant\n${want}`);
    select = stored.map(({ n, as }) => (as ? `${as(id(n))} AS ${id(n)}` : id(n))).join(', ');
    await c.run(`CREATE VIEW r AS SELECT ${select} FROM read_parquet(${sq(source)})`);
  } else {
    // binary is rendered "\x" + hex in JSON: read as text, then unhexed
    const unhex = (t, c) => (t === 'BLOB' ? `unhex(substr(${c}, 3))` : t === 'BLOB[]' ? `list_transform(${c}, x -> unhex(substr(x, 3)))` : c);
    if (types.some(({ t }) => t.includes('BLOB') && t !== 'BLOB' && t !== 'BLOB[]')) die('binary nested deeper than a list');
    const cols = types.map(({ n, t }) => `${sq(n)}: ${sq(t.replace(/BLOB/g, 'VARCHAR'))}`).join(', ');
    select = types.map(({ n, t }) => `${unhex(t, id(n))} AS ${id(n)}`).join(', ');
    await c.run(`CREATE VIEW r AS SELECT ${select} FROM read_json([${groups('jsonl', 'jsonl').map(sq).join(', ')}],
      format = 'newline_delimited', columns = {${cols}})`);
  }
  await c.run(`COPY (SELECT * FROM r) TO ${sq(ref)} (FORMAT parquet)`);
  // each once into memory: the comparisons below then read no file again
  await c.run('CREATE TABLE vt AS SELECT * FROM v; CREATE TABLE rt AS SELECT * FROM r');
  const [{ n }] = await rows('SELECT count(*)::INTEGER AS n FROM vt');
  for (const { n: col } of types) {
    for (const [a, b] of [['vt', 'rt'], ['rt', 'vt']]) {
      const [{ k }] = await rows(`SELECT count(*)::INTEGER AS k FROM (SELECT ${id(col)} FROM ${a} EXCEPT ALL SELECT ${id(col)} FROM ${b})`);
      if (k) {
        const ex = await rows(`SELECT ${id(col)} AS x FROM ${a} EXCEPT ALL SELECT ${id(col)} FROM ${b} LIMIT 1`);
        die(`column ${col}: ${k} ${a === 'vt' ? "of the views' rows are not the reference's" : "of the reference's rows are not the views'"}, such as ${JSON.stringify(ex[0].x)}`);
      }
    }
  }
  const [{ k }] = await rows('SELECT count(*)::INTEGER AS k FROM (SELECT * FROM vt EXCEPT ALL SELECT * FROM rt UNION ALL (SELECT * FROM rt EXCEPT ALL SELECT * FROM vt))');
  if (k) die(`${k} whole rows differ`);
  for (const { n: col, t } of types) console.log(`${col} ${t}`);
  console.error(`duckdb: ${n} rows in ${views.length} views, ${types.length} columns, equal both ways`);
}

function polars() {
  const require = createRequire(import.meta.url);
  const pl = require('nodejs-polars');
  const dtype = (df, c) => { // nodejs-polars cannot hand some dtypes to JS (Binary): their names then
    try { return String(df.getColumn(c).dtype); } catch (e) { return /DataType (\w+)/.exec(e.message)?.[1] ?? 'unknown'; }
  };
  const text = (df) => df.writeJSON({ format: 'lines' }).toString();
  // equal rows: frameEqual, or, where Polars' frameEqual also compares the
  // values under a NULL struct (which the formats leave undefined), the
  // same rows as Polars writes them out
  const same = (a, b, c) => a.select(c).frameEqual(b.select(c), true) || text(a.select(c)) === text(b.select(c));
  const r = pl.readParquet(ref);
  const pq = groups('parquet', 'parquet').map((f) => [f, pl.readParquet(f)]);
  const ar = groups('arrow', 'arrow').map((f) => [f, pl.readIPC(readFileSync(f)), pl.scanIPC(f).collectSync()]);
  if (pq.length !== ar.length) die(`${pq.length} Parquet views, ${ar.length} Arrow views`);
  const all = pq.length ? pl.concat(pq.map(([, d]) => d), { how: 'vertical' }) : null;
  const byText = [];
  for (const c of r.columns) {
    if (!all || !all.columns.includes(c)) die(`the Parquet views have no column ${c}`);
    if (dtype(all, c) !== dtype(r, c)) die(`column ${c}: ${dtype(all, c)} in the Parquet views, ${dtype(r, c)} in the reference`);
    if (!same(all, r, c)) die(`column ${c}: the Parquet views' rows differ from the reference's`);
    if (!all.select(c).frameEqual(r.select(c), true)) byText.push(c);
  }
  if (all.columns.length !== r.columns.length || all.height !== r.height) die(`${all.height} rows x ${all.columns.length} columns, the reference ${r.height} x ${r.columns.length}`);
  for (let g = 0; g < ar.length; g++) {
    const [f, a, mm] = ar[g];
    const [, p] = pq[g];
    if (!a.frameEqual(mm, true)) die(`${f}: readIPC and scanIPC (memory-mapped) differ`);
    if (a.columns.join() !== p.columns.join() || a.height !== p.height) die(`${f}: ${a.height} rows of ${a.columns}, the Parquet view ${p.height} of ${p.columns}`);
    for (const c of p.columns) {
      const ta = dtype(a, c), tp = dtype(p, c);
      let x = a;
      if (ta !== tp) {
        const vector = ta.replace(/FixedSizeList\((DataType\(\w+\)),\d+\)/g, 'List($1)') === tp;
        const json = ta === 'DataType(String)' && tp !== ta;
        if (!vector && !json) die(`${f} column ${c}: ${ta}, the Parquet view's ${tp}`);
        x = a.select(json ? pl.col(c).str.jsonDecode(p.getColumn(c).dtype) : pl.col(c).cast(p.getColumn(c).dtype));
      }
      if (!same(x, p, c)) die(`${f} column ${c}: the Arrow view's rows differ from the Parquet view's`);
    }
  }
  console.error(`polars: ${all.height} rows x ${r.columns.length} columns equal to the reference (by frameEqual but ${byText.length ? byText.join(', ') + ': by their rows written out' : 'none'}); ${ar.length} Arrow views (read and memory-mapped) equal to their Parquet views`);
}

async function hyparquet() {
  const { parquetReadObjects, parquetMetadata } = await import('hyparquet');
  const read = async (f) => {
    const b = readFileSync(f);
    const file = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    return { rows: await parquetReadObjects({ file }), meta: parquetMetadata(file) };
  };
  // What a leaf's annotation means, as a LogicalType (hyparquet's names and
  // key order): its logical type, or the one its converted type stands for
  // (LogicalTypes.md, "Backward compatibility"); writers may write either or
  // both (parquet_file.py holds them to agreeing). INT_32 on an INT32 and
  // INT_64 on an INT64 say what the physical type says already.
  const meaning = (e) => {
    const c = e.converted_type;
    let m = e.logical_type;
    if (!m && c) {
      const int = /^(U?)INT_(\d+)$/.exec(c), time = /^(TIME|TIMESTAMP)_(MILLIS|MICROS)$/.exec(c);
      if (int) m = { type: 'INTEGER', bitWidth: Number(int[2]), isSigned: !int[1] };
      else if (time) m = { type: time[1], isAdjustedToUTC: true, unit: time[2] };
      else if (c === 'UTF8') m = { type: 'STRING' };
      else if (c === 'DECIMAL') m = { type: 'DECIMAL', scale: e.scale, precision: e.precision };
      else m = { type: c };
    }
    if (m?.type === 'INTEGER' && m.isSigned && `INT${m.bitWidth}` === e.type) m = null;
    return JSON.stringify(m ?? null);
  };
  const leaves = (meta) => meta.schema.filter((e) => e.type !== undefined)
    .map((e) => `${e.name} ${e.type} ${meaning(e)}`).join('\n');
  const norm = (x) => JSON.stringify(x, (k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? `\\x${Buffer.from(v).toString('hex')}` : v));
  const r = await read(ref);
  let i = 0;
  for (const f of groups('parquet', 'parquet')) {
    const v = await read(f);
    if (leaves(v.meta) !== leaves(r.meta)) die(`${f}: leaf types\n${leaves(v.meta)}\nthe reference's\n${leaves(r.meta)}`);
    for (const row of v.rows) {
      if (i >= r.rows.length) die(`${f}: more rows than the reference's ${r.rows.length}`);
      const a = norm(row), b = norm(r.rows[i]);
      if (a !== b) die(`${f}: row ${i} differs from the reference's:\n${a.slice(0, 400)}\n${b.slice(0, 400)}`);
      i++;
    }
  }
  if (i !== r.rows.length) die(`the views hold ${i} rows, the reference ${r.rows.length}`);
  console.error(`hyparquet: ${i} rows equal to the reference, leaf types too`);
}

if (reader === 'duckdb') await duckdb();
else if (reader === 'polars') polars();
else if (reader === 'hyparquet') await hyparquet();
else die('READER is duckdb, polars or hyparquet');
