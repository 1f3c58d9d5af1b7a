// conformance.mjs INGOT WORK FILE... - the Parquet project's reader test corpus
// (tests/parquet-testing/) through `ingot import`, each file's values checked
// against DuckDB's reading of the same file.
//
// For every file: the import must end (a timeout) and must not crash (a
// signal, a sanitizer report). A file DuckDB reads must import, and every
// value of every column (ingot cat --rows: the JSON of each row) must equal
// DuckDB's value, walked along both types: integers exactly, floats bit for bit
// (NaN and -0.0 included), decimals as the double nearest them where ingot
// stores float64, strings and binary byte for byte, lists, structs and maps
// element by element. A file DuckDB refuses, or a file of bad_data/ (which
// DuckDB reads leniently at times), must be refused with a message naming it.
// A few files DuckDB cannot read have another oracle (EXPECT below): a twin
// file of the same values under a codec DuckDB reads, or the values their
// description in the corpus gives, as a DuckDB query.
//
// Prints a line per file (non-PASS lines, which scripts/test shows as they
// are), "FAIL corpus.FILE" for each file that breaks a rule, and ends
// with "N of N imported identically, C crashes" and the refused files.
import { DuckDBInstance, DuckDBTypeId } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { basename } from 'node:path';

const [ingot, work, ...files] = process.argv.slice(2);
const TIMEOUT_MS = 120000;

// Files a reader must refuse: what is wrong with each (bad_data/README.md).
// Not bad_data/ARROW-GH-43605.parquet: its dictionary codes have a bit width of
// 0, which is right for its dictionary of one value (a reader crashed on it);
// it must import like any valid file.
const MUST_REFUSE = {
  'bad_data/PARQUET-1481.parquet': 'a schema element of an unknown physical type',
  'bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet': 'a dictionary page header with a negative value count',
  'bad_data/ARROW-RS-GH-6229-LEVELS.parquet': 'a page with fewer repetition levels than values',
  'bad_data/ARROW-GH-41321.parquet': 'fewer decoded levels than the page header counts',
  'bad_data/ARROW-GH-41317.parquet': 'columns of different lengths',
  'bad_data/ARROW-GH-45185.parquet': 'repetition levels that start with 1',
  'bad_data/ARROW-GH-47662.parquet': 'a REQUIRED column holding NULLs',
};

// Files ingot refuses on purpose, though DuckDB reads them: why.
const BY_DESIGN = {
  'data/column_chunk_key_value_metadata.parquet': 'no rows (ingot makes no empty table from any input)',
  'data/large_string_map.brotli.parquet': 'pages of 1 GiB, each one 2^30-byte string: more than an ingot page holds',
};

// Files DuckDB cannot read whose values are known another way: a query giving
// them (run by DuckDB), in the file's row order.
const rp = (f) => `read_parquet('${f}')`;
const lz4twin = (name) => (dir) => `SELECT * FROM ${rp(`${dir}/data/${name}`)}`;
const EXPECT = {
  // the same rows as their lz4_raw twins (Arrow's tests check both against one list)
  'data/hadoop_lz4_compressed.parquet': lz4twin('lz4_raw_compressed.parquet'),
  'data/hadoop_lz4_compressed_larger.parquet': lz4twin('lz4_raw_compressed_larger.parquet'),
  'data/non_hadoop_lz4_compressed.parquet': lz4twin('lz4_raw_compressed.parquet'),
  // each column twice, PLAIN and BYTE_STREAM_SPLIT (which DuckDB reads only for
  // FLOAT and DOUBLE): the split columns must equal the plain ones
  'data/byte_stream_split_extended.gzip.parquet': (dir) => {
    const kinds = ['float16', 'float', 'double', 'int32', 'int64', 'flba5', 'decimal'];
    const cols = kinds.map((k) => `${k}_plain, ${k}_plain AS ${k}_byte_stream_split`).join(', ');
    return `SELECT ${cols} FROM ${rp(`${dir}/data/byte_stream_split_extended.gzip.parquet`)}`;
  },
  // int96_from_spark.md gives the microseconds; DuckDB 1.5 reads the last
  // (year 290,000, which Spark stored as an overflowed day and time) wrapped
  'data/int96_from_spark.parquet': () => `SELECT make_timestamp(us) AS a FROM (VALUES
      (0, 1704141296123456), (1, 1704070800000000), (2, 253402225200000000),
      (3, 1735599600000000), (4, NULL), (5, 9089380393200000000)) t(i, us) ORDER BY i`,
  // map_no_value.md: a MAP of NULL values, a MAP without values, a LIST of the keys
  'data/map_no_value.parquet': () => `SELECT
      MAP(k, [NULL, NULL, NULL]::INTEGER[]) AS my_map,
      [{'key': k[1]}, {'key': k[2]}, {'key': k[3]}] AS my_map_no_v, k AS my_list
    FROM (VALUES (1, [1, 2, 3]), (2, [4, 5, 6]), (3, [7, 8, 9])) t(i, k) ORDER BY i`,
};

// ---- ingot's JSON, numbers kept as their text (int64 beyond 2^53, float bits) ----

function parseJson(s) {
  let i = 0;
  const ws = () => { while (i < s.length && ' \t\r\n'.includes(s[i])) i++; };
  const value = () => {
    ws();
    const c = s[i];
    if (c === '{') {
      i++;
      const o = {};
      ws();
      if (s[i] === '}') { i++; return o; }
      for (;;) {
        ws();
        const k = str();
        ws();
        if (s[i++] !== ':') throw new Error(`':' expected at ${i}`);
        o[k] = value();
        ws();
        if (s[i] === ',') { i++; continue; }
        if (s[i++] !== '}') throw new Error(`'}' expected at ${i}`);
        return o;
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (s[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (s[i] === ',') { i++; continue; }
        if (s[i++] !== ']') throw new Error(`']' expected at ${i}`);
        return a;
      }
    }
    if (c === '"') return str();
    for (const [w, v] of [['true', true], ['false', false], ['null', null]])
      if (s.startsWith(w, i)) { i += w.length; return v; }
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(s.slice(i, i + 400));
    if (!m) throw new Error(`a value expected at ${i}`);
    i += m[0].length;
    return { num: m[0] };
  };
  const str = () => {
    if (s[i] !== '"') throw new Error(`a string expected at ${i}`);
    let j = i + 1;
    while (s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    const t = JSON.parse(s.slice(i, j + 1));
    i = j + 1;
    return t;
  };
  const v = value();
  ws();
  if (i !== s.length) throw new Error(`trailing text at ${i}`);
  return v;
}

// ---- ingot's types (schema_type text): name, args, children, nullable ----

function parseType(t) {
  let i = 0;
  const ws = () => { while (t[i] === ' ') i++; };
  const ident = () => {
    ws();
    if (t[i] === '"') {
      const j = t.indexOf('"', i + 1);
      const n = t.slice(i + 1, j);
      i = j + 1;
      return n;
    }
    const m = /^[A-Za-z0-9_]+/.exec(t.slice(i));
    if (!m) throw new Error(`bad type text: ${t}`);
    i += m[0].length;
    return m[0];
  };
  const type = () => {
    const name = ident();
    const node = { name, children: [], fields: [], args: '' };
    ws();
    if (t[i] === '<') {
      i++;
      for (;;) {
        ws();
        if (name === 'struct') {
          const f = ident();
          ws();
          i++; // ':'
          node.fields.push(f);
          node.children.push(type());
        } else if (name === 'vector') {
          node.children.push(type());
          ws();
          const j = t.indexOf('>', i);
          node.args = t.slice(i + 1, j).trim();
          i = j;
        } else {
          node.children.push(type());
        }
        ws();
        if (t[i] === ',') { i++; continue; }
        i++; // '>'
        break;
      }
    } else if (t[i] === '(') {
      const j = t.indexOf(')', i);
      node.args = t.slice(i + 1, j);
      i = j + 1;
    }
    ws();
    node.nullable = t[i] === '?';
    if (node.nullable) i++;
    return node;
  };
  return type();
}

// ---- comparing one value of DuckDB's with ingot's ----

const T = DuckDBTypeId;
const INTS = new Set([T.TINYINT, T.SMALLINT, T.INTEGER, T.BIGINT, T.UTINYINT, T.USMALLINT,
  T.UINTEGER, T.UBIGINT, T.HUGEINT, T.UHUGEINT]);
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const show = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}` : x))?.slice(0, 200);

// A float as ingot renders it: a number, or "NaN" / "Infinity" / "-Infinity".
function floatOf(v) {
  if (v && typeof v === 'object' && 'num' in v) return Number(v.num);
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return undefined;
}
const intOf = (v) => (v && typeof v === 'object' && 'num' in v && /^-?\d+$/.test(v.num) ? BigInt(v.num) : undefined);

// Time units of the file's leaves by name (DuckDB's parquet_schema), for
// timestamps and times that ingot keeps as integers in the file's unit.
const UNIT_NS = { MILLIS: 1000000n, MICROS: 1000n, NANOS: 1n };

// Where a and b differ (a string saying so), or null when equal.
function diff(itype, dtype, d, v, at, ctx) {
  if (d === null || d === undefined) return v === null ? null : `${at}: DuckDB NULL, ingot ${show(v)}`;
  if (v === null) return `${at}: DuckDB ${show(d)}, ingot NULL`;
  const id = dtype.typeId;
  if (id === T.LIST || id === T.ARRAY) {
    if (itype.name !== 'list' && itype.name !== 'vector') return `${at}: DuckDB ${dtype}, ingot ${itype.name}`;
    if (!Array.isArray(v) || v.length !== d.items.length)
      return `${at}: DuckDB ${d.items.length} items, ingot ${show(v)}`;
    for (let k = 0; k < v.length; k++) {
      const e = diff(itype.children[0], dtype.valueType, d.items[k], v[k], `${at}[${k}]`, ctx);
      if (e) return e;
    }
    return null;
  }
  if (id === T.STRUCT) {
    if (itype.name !== 'struct') return `${at}: DuckDB ${dtype}, ingot ${itype.name}`;
    const names = dtype.entryNames;
    if (show(Object.keys(v)) !== show(names)) return `${at}: fields ${show(names)}, ingot ${show(Object.keys(v))}`;
    for (let k = 0; k < names.length; k++) {
      const e = diff(itype.children[k], dtype.entryTypes[k], d.entries[names[k]], v[names[k]], `${at}.${names[k]}`, ctx);
      if (e) return e;
    }
    return null;
  }
  if (id === T.MAP) { // ingot: list<struct<key:K, value:V>>
    const st = itype.children[0];
    if (itype.name !== 'list' || st?.name !== 'struct' || st.fields[0] !== 'key' || st.fields[1] !== 'value')
      return `${at}: DuckDB ${dtype}, ingot not a list of key and value`;
    if (!Array.isArray(v) || v.length !== d.entries.length) return `${at}: DuckDB ${d.entries.length} entries, ingot ${show(v)}`;
    for (let k = 0; k < v.length; k++) {
      const e = diff(st.children[0], dtype.keyType, d.entries[k].key, v[k].key, `${at}[${k}].key`, ctx) ||
        diff(st.children[1], dtype.valueType, d.entries[k].value, v[k].value, `${at}[${k}].value`, ctx);
      if (e) return e;
    }
    return null;
  }
  const bad = (what) => `${at}: DuckDB ${show(d)} (${dtype}), ingot ${show(v)} (${itype.name}${itype.args ? `(${itype.args})` : ''})${what ? `: ${what}` : ''}`;
  if (id === T.BOOLEAN) return v === d ? null : bad();
  if (INTS.has(id)) return intOf(v) === BigInt(d) ? null : bad();
  if (id === T.FLOAT || id === T.DOUBLE) {
    let f = floatOf(v);
    if (f === undefined) return bad();
    if (id === T.FLOAT) f = Math.fround(f);
    return Object.is(f, d) ? null : bad();
  }
  if (id === T.DECIMAL) {
    if (itype.name === 'float64') { // the double nearest the decimal
      const f = floatOf(v);
      return Object.is(f, Number(`${d.value}e${-d.scale}`)) ? null : bad('not the nearest double');
    }
    return decimalText(v) === d.toString() ? null : bad();
  }
  if (id === T.VARCHAR) return v === d ? null : bad();
  if (id === T.BLOB) return v === `\\x${hex(d.bytes)}` ? null : bad();
  if (id === T.UUID) return typeof v === 'string' && v.replace(/^\\x/, '').replace(/-/g, '') === d.toString().replace(/-/g, '') ? null : bad();
  if (id === T.DATE) {
    if (intOf(v) !== undefined) return intOf(v) === BigInt(d.days) ? null : bad('days since 1970');
    return v === d.toString() ? null : bad();
  }
  const instant = { [T.TIMESTAMP]: ['micros', 1000n], [T.TIMESTAMP_TZ]: ['micros', 1000n],
    [T.TIMESTAMP_MS]: ['millis', 1000000n], [T.TIMESTAMP_S]: ['seconds', 1000000000n],
    [T.TIMESTAMP_NS]: ['nanos', 1n], [T.TIME]: ['micros', 1000n], [T.TIME_NS]: ['nanos', 1n] }[id];
  if (instant) {
    const dns = BigInt(d[instant[0]]) * instant[1];
    if (intOf(v) !== undefined) { // an integer in the file's unit
      const unit = ctx.units.get(at.slice(at.indexOf(', ') + 2).replace(/\[\d+\]/g, '').split('.').pop());
      if (!unit) return bad('no unit known for this leaf');
      return intOf(v) * UNIT_NS[unit] === dns ? null : bad(`in ${unit}`);
    }
    const ns = isoNanos(v);
    if (ns === undefined) return bad('not an ISO-8601 instant');
    return ns === dns ? null : bad();
  }
  if (id === T.GEOMETRY) return bad('GEOMETRY should have been read as WKB');
  return bad(`no comparison for ${dtype}`);
}

const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

function decimalText(v) {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && 'num' in v) return v.num;
  return undefined;
}

// "2024-01-01T20:34:56.123456Z", "2024-01-01 20:34:56", "20:34:56.5" as
// nanoseconds since 1970 (or since midnight)
function isoNanos(v) {
  if (typeof v !== 'string') return undefined;
  const m = /^(?:([+-]?\d{4,})-(\d\d)-(\d\d)[T ])?(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?$/.exec(v);
  if (!m) return undefined;
  let days = 0n;
  if (m[1] !== undefined) {
    // days from civil (Howard Hinnant's algorithm), in BigInt for any year
    let y = BigInt(m[1]);
    const mo = BigInt(m[2]), dd = BigInt(m[3]);
    y -= mo <= 2n ? 1n : 0n;
    const era = floorDiv(y, 400n);
    const yoe = y - era * 400n;
    const doy = (153n * (mo + (mo > 2n ? -3n : 9n)) + 2n) / 5n + dd - 1n;
    const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
    days = era * 146097n + doe - 719468n;
  }
  let ns = ((days * 24n + BigInt(m[4])) * 60n + BigInt(m[5])) * 60n + BigInt(m[6]);
  ns = ns * 1000000000n + BigInt((m[7] ?? '').padEnd(9, '0'));
  if (m[8] && m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1n : 1n, hm = m[8].slice(1).replace(':', '');
    ns -= sign * (BigInt(hm.slice(0, 2)) * 60n + BigInt(hm.slice(2))) * 60000000000n;
  }
  return ns;
}

// ---- running ingot ----

function run(args) {
  const r = spawnSync(ingot, args, { encoding: 'utf8', timeout: TIMEOUT_MS, maxBuffer: 1 << 30 });
  const out = `${r.stderr ?? ''}`.trim();
  if (r.error?.code === 'ETIMEDOUT') return { crash: `no answer in ${TIMEOUT_MS / 1000} s (a hang)`, out };
  if (r.signal) return { crash: `killed by ${r.signal}`, out };
  if (/AddressSanitizer|runtime error:|LeakSanitizer/.test(out)) return { crash: 'a sanitizer report', out };
  if (r.status !== 0 && r.status !== 2) return { crash: `exit ${r.status}`, out };
  return { status: r.status, stdout: r.stdout, out };
}

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run("SET threads = 1"); // the machine is shared; the files are small
const dir = files.length ? files[0].replace(/\/(data|bad_data)\/.*$/, '') : '.';

let identical = 0, expected = 0, crashes = 0, failed = 0;
const refused = [];
const say = (s) => console.log(`  ${s}`);
const failFile = (rel, why) => { failed++; console.log(`FAIL corpus.${rel}: ${why}`); };

for (const file of files) {
  const rel = file.slice(dir.length + 1);
  const table = `${work}/${basename(file).replace(/[^A-Za-z0-9_.-]/g, '_')}.t`;
  rmSync(table, { recursive: true, force: true });
  const imp = run(['import', file, table]);
  if (imp.crash) {
    crashes++;
    failFile(rel, `import: ${imp.crash}\n${imp.out.split('\n').slice(0, 12).join('\n')}`);
    continue;
  }
  const msg = imp.out.split('\n').filter((l) => l.startsWith('ingot:')).join(' ');

  // what DuckDB makes of it
  let sql, duck, duckError;
  if (EXPECT[rel]) sql = EXPECT[rel](dir);
  else sql = `SELECT * EXCLUDE (file_row_number) FROM read_parquet('${file}', file_row_number = true) ORDER BY file_row_number`;
  if (!MUST_REFUSE[rel] && !BY_DESIGN[rel]) {
    try {
      // geometry as the WKB bytes the file holds (ingot keeps them as binary)
      const desc = await con.runAndReadAll(`DESCRIBE ${sql}`);
      const geo = desc.getRows().filter((r) => String(r[1]).startsWith('GEOMETRY')).map((r) => r[0]);
      if (geo.length) {
        const q = (n) => `"${n.replace(/"/g, '""')}"`;
        sql = `SELECT * REPLACE (${geo.map((n) => `ST_AsWKB(${q(n)}) AS ${q(n)}`).join(', ')}) FROM (${sql})`;
      }
      duck = await con.runAndReadAll(sql);
    } catch (e) {
      duckError = String(e.message).split('\n')[0].replaceAll(file, basename(file));
    }
  }

  if (MUST_REFUSE[rel] || BY_DESIGN[rel] || duckError) {
    const why = MUST_REFUSE[rel] ?? BY_DESIGN[rel] ?? `DuckDB: ${duckError}`;
    if (imp.status === 0) {
      failFile(rel, `imported, but ${MUST_REFUSE[rel] ? 'the file is damaged' : 'DuckDB refuses it'} (${why})`);
    } else if (!msg.includes(file)) {
      failFile(rel, `refused without naming the file: ${msg}`);
    } else {
      refused.push(`${rel}: ${msg.replace(`ingot: import: ${file}: `, '')}  [${why}]`);
    }
    continue;
  }

  expected++;
  if (imp.status !== 0) {
    failFile(rel, `DuckDB reads it, ingot refuses: ${msg}`);
    continue;
  }
  const rows = duck.currentRowCount;
  const names = duck.columnNames(), dtypes = duck.columnTypes();
  const insp = run(['inspect', '--json', table]);
  const info = JSON.parse(insp.stdout);
  if (info.rows !== rows) {
    failFile(rel, `${info.rows} rows, DuckDB ${rows}`);
    continue;
  }
  const itypes = new Map(info.columns.map((c) => [c.name, c.schema_type]));
  const missing = names.filter((n) => !itypes.has(n));
  if (missing.length) {
    failFile(rel, `columns ${show(missing)} missing; ingot has ${show([...itypes.keys()])}`);
    continue;
  }
  // the unit of each leaf's integers, by name (the footer only: DuckDB reads
  // it also where it cannot read the pages)
  const units = new Map();
  try {
    const sch = await con.runAndReadAll(`SELECT name, type, logical_type, converted_type FROM parquet_schema('${file}')`);
    for (const [n, t, lt, ct] of sch.getRows()) {
      const how = `${lt} ${ct}`;
      units.set(n, t === 'INT96' ? 'MICROS' : /MILLIS/.test(how) ? 'MILLIS' : /NANOS/.test(how) ? 'NANOS' : 'MICROS');
    }
  } catch {
    // no footer DuckDB reads: no times to compare either
  }
  const ctx = { units };
  const cat = rows ? run(['cat', '--rows', `0-${rows - 1}`, table]) : { stdout: '' };
  const lines = cat.stdout.split('\n').filter((l) => l.length);
  let problem = lines.length === rows ? null : `cat --rows gave ${lines.length} rows of ${rows}`;
  const parsed = names.map((n) => parseType(itypes.get(n)));
  const drows = duck.getRows();
  for (let r = 0; !problem && r < rows; r++) {
    const got = parseJson(lines[r]);
    if (show(Object.keys(got)) !== show(names)) {
      problem = `row ${r}: columns ${show(Object.keys(got))}, DuckDB ${show(names)}`;
      break;
    }
    for (let k = 0; !problem && k < names.length; k++)
      problem = diff(parsed[k], dtypes[k], drows[r][k], got[names[k]], `row ${r}, ${names[k]}`, ctx);
  }
  if (problem) {
    failFile(rel, problem);
    continue;
  }
  identical++;
  say(`identical: ${rel} (${rows} rows, ${names.length} columns${EXPECT[rel] ? ', against its twin' : ''})`);
  rmSync(table, { recursive: true, force: true });
}

console.log(`${identical} of ${expected} imported identically, ${crashes} crashes`);
console.log(`${refused.length} refused:`);
for (const r of refused) say(r);
if (!failed) console.log(`PASS corpus_identical (${identical} of ${expected} identical, ${refused.length} refused, 0 crashes)`);
process.exit(failed ? 1 : 0);
