// blob_duck.mjs - the DuckDB side of scripts/bench/blob_point (peer: Parquet list<binary>).
//
//   node blob_duck.mjs parquet OBJDIR OUT.parquet [--rows N]
//       OBJDIR/R_K.bin (row R, object K) -> Parquet with columns id BIGINT and
//       frames BLOB[] (list<binary>, objects in K order), one row per R, sorted by id,
//       written by DuckDB from read_blob() (default compression: snappy), in DuckDB's
//       default row groups (122,880 rows: all rows in one group), or with --rows N
//       one row group per row (rows 0..N-1), so that a point query on id can skip
//       the other rows' lists by the row groups' min/max statistics.
//       Prints JSON: secs, row groups, max rows per group, frames chunk sizes.
//   node blob_duck.mjs fetch PARQUET OBJDIR R:K[,R:K...] --mode cold|warm
//       For each sample: SELECT frames[K+1] FROM read_parquet(PARQUET) WHERE id = R,
//       materialised, timed; the bytes are compared with OBJDIR/R_K.bin (untimed).
//       cold: a fresh instance + connection per sample, made before
//             `sync; echo 3 > /proc/sys/vm/drop_caches`; the timed part is the query.
//       warm: one instance and connection; each sample runs once untimed, then timed.
//       Prints one JSON line per sample: r, k, us, rchar, read_bytes (this process's
//       /proc/self/io deltas over the query), len.
import { DuckDBInstance } from '@duckdb/node-api';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const DATA = process.env.INGOT_BENCH_DATA || '/var/tmp/ingot-bench';
const CONFIG = { temp_directory: `${DATA}/duckdb.tmp` };
const sq = (s) => `'${s.replace(/'/g, "''")}'`;
const nowUs = () => Number(process.hrtime.bigint()) / 1e3;
function io() {
  const o = {};
  for (const l of readFileSync('/proc/self/io', 'utf8').split('\n')) {
    const m = /^(\w+): (\d+)$/.exec(l);
    if (m) o[m[1]] = Number(m[2]);
  }
  return o;
}
const dropCaches = () => execSync('sync; echo 3 > /proc/sys/vm/drop_caches');

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const pos = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const [cmd] = pos;

async function parquet() {
  const [, objdir, out] = pos;
  const perRow = opt('--rows') !== undefined;
  const inst = await DuckDBInstance.create(':memory:', CONFIG);
  const c = await inst.connect();
  const k = `CAST(split_part(parse_filename(filename, true), '_', 2) AS INTEGER)`;
  let src;
  if (perRow) {
    // one SELECT per row, UNION ALL: each row reaches the writer as its own chunk, so
    // ROW_GROUP_SIZE 1 gives one row group per row (a single GROUP BY result arrives
    // as one chunk and would become one row group whatever ROW_GROUP_SIZE says)
    const parts = [];
    for (let r = 0; r < +opt('--rows'); r++)
      parts.push(`SELECT ${r}::BIGINT AS id, list(content ORDER BY ${k}) AS frames ` +
        `FROM read_blob(${sq(`${objdir}/${r}_*.bin`)})`);
    src = parts.join(' UNION ALL ');
  } else {
    src = `SELECT id, list(content ORDER BY k) AS frames FROM (
        SELECT CAST(split_part(parse_filename(filename, true), '_', 1) AS BIGINT) AS id, ${k} AS k, content
        FROM read_blob(${sq(objdir + '/*.bin')}))
      GROUP BY id ORDER BY id`;
  }
  const t0 = nowUs();
  await c.run(`COPY (${src}) TO ${sq(out)} (FORMAT parquet${perRow ? ', ROW_GROUP_SIZE 1' : ''})`);
  const secs = (nowUs() - t0) / 1e6;
  const g = await (await c.runAndReadAll(
    `SELECT count(DISTINCT row_group_id) AS groups, max(row_group_num_rows) AS max_rows,
            count(*) FILTER (WHERE path_in_schema LIKE 'frames%') AS frames_chunks,
            max(total_compressed_size) FILTER (WHERE path_in_schema LIKE 'frames%') AS max_chunk_bytes,
            any_value(compression) FILTER (WHERE path_in_schema LIKE 'frames%') AS compression
     FROM parquet_metadata(${sq(out)})`)).getRowObjectsJson();
  console.log(JSON.stringify({ secs, ...g[0] }));
}

async function fetch() {
  const [, pq, objdir, list] = pos;
  const mode = opt('--mode', 'warm');
  const samples = list.split(',').map((s) => s.split(':').map(Number));
  let inst, conn;
  const q = (r, k) => `SELECT frames[${k + 1}] AS f FROM read_parquet(${sq(pq)}) WHERE id = ${r}`;
  async function once(r, k) {
    const io0 = io(), t0 = nowUs();
    const res = await conn.runAndReadAll(q(r, k));
    const rows = res.getRows();
    const us = nowUs() - t0, io1 = io();
    if (rows.length !== 1) throw new Error(`row ${r}: ${rows.length} rows`);
    const v = rows[0][0];
    const bytes = v.bytes ?? v; // DuckDBBlobValue
    return { us, rchar: io1.rchar - io0.rchar, read_bytes: io1.read_bytes - io0.read_bytes, bytes };
  }
  if (mode === 'warm') {
    inst = await DuckDBInstance.create(':memory:', CONFIG);
    conn = await inst.connect();
  }
  for (const [r, k] of samples) {
    if (mode === 'cold') {
      inst = await DuckDBInstance.create(':memory:', CONFIG);
      conn = await inst.connect();
      dropCaches();
    } else {
      await once(r, k);
    }
    const m = await once(r, k);
    const want = readFileSync(`${objdir}/${r}_${k}.bin`);
    if (Buffer.compare(Buffer.from(m.bytes), want) !== 0) throw new Error(`row ${r} object ${k}: wrong bytes`);
    console.log(JSON.stringify({ r, k, us: Math.round(m.us), rchar: m.rchar, read_bytes: m.read_bytes, len: m.bytes.length }));
    if (mode === 'cold') {
      conn.closeSync?.();
      inst.closeSync?.();
    }
  }
}

if (cmd === 'parquet') await parquet();
else if (cmd === 'fetch') await fetch();
else {
  console.error('usage: node blob_duck.mjs parquet OBJDIR OUT [--rows N] | fetch PARQUET OBJDIR R:K,.. --mode cold|warm');
  process.exit(2);
}
