// load_views.mjs MOUNT SECONDS ROWS - a DuckDB reader for
// tests/integration/test_load.sh: queries the mount's Parquet views over and
// over while rows are erased, and prints {"reads", "estale", "reader_mixed",
// "errors"} as JSON. Each view is one row group of one generation: a query
// that succeeds must have val = id / 2 on every row (a view mixing two
// generations would pair one row's id with another's val), distinct ids and no
// more rows than the table had. A query that runs while an erase lands may
// fail instead, and is counted, not an error:
//   estale        a handle of the older generation read a page (ESTALE)
//   reader_mixed  DuckDB opens each view several times a query, by path; when
//                 the erase lands between those opens they reach two
//                 generations, and DuckDB reads the new file at the old
//                 footer's offsets: a Thrift parse error (docs/FILESYSTEM.md).
// DuckDB's external file cache is off: with it on (its default since 1.3) the
// parse errors come several times as often (it keeps bytes of the old file).
import { DuckDBInstance } from '@duckdb/node-api';

const [mount, seconds, rows] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run('SET enable_external_file_cache = false');
const out = { reads: 0, estale: 0, reader_mixed: 0, errors: [] };
const end = Date.now() + Number(seconds) * 1000;
const sql = `SELECT count(*) AS n, count(*) FILTER (WHERE val IS DISTINCT FROM id / 2) AS bad,
  count(DISTINCT id) AS ids FROM read_parquet('${mount}/parquet/*.parquet')`;
while (Date.now() < end) {
  try {
    const r = (await c.runAndReadAll(sql)).getRowObjectsJson()[0];
    const n = Number(r.n), bad = Number(r.bad), ids = Number(r.ids);
    if (bad) out.errors.push(`parquet: ${bad} rows whose val is not id / 2 (of ${n})`);
    if (ids !== n) out.errors.push(`parquet: ${n} rows but ${ids} distinct ids`);
    if (n > Number(rows)) out.errors.push(`parquet: ${n} rows, the table had ${rows}`);
    out.reads++;
  } catch (e) {
    const m = String(e);
    if (/Stale file handle/.test(m)) out.estale++;
    else if (/TProtocolException|don't know what type/.test(m)) out.reader_mixed++;
    else out.errors.push(`parquet: ${m.slice(0, 200)}`);
  }
  if (out.errors.length > 10) break;
}
console.log(JSON.stringify(out));
