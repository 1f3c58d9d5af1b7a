// load_views.mjs MOUNT SECONDS - a DuckDB reader for tests/integration/test_load.sh:
// queries the mount's Parquet views over and over while rows are erased, and
// prints {"reads", "estale", "errors"} as JSON. Each view is one row group
// of one generation: within it, val must be id / 2 on every row (a view mixing
// two generations would pair one row's id with another's val), and no view
// may hold more rows than the table had. A query that meets a view of an older
// generation fails with ESTALE ("Stale file handle"): counted, not an error.
//
// DuckDB's external file cache is off: with it on (DuckDB 1.3+ default) a query
// running while an erase lands fails now and then with a Thrift parse error
// ("TProtocolException: Invalid data"): DuckDB read a footer at an offset from
// before the change (docs/FILESYSTEM.md, "Parquet views"). It never returned
// mixed rows in those runs; this reader checks the mount's own guarantee.
import { DuckDBInstance } from '@duckdb/node-api';

const [mount, seconds, rows] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run('SET enable_external_file_cache = false');
const out = { reads: 0, estale: 0, errors: [] };
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
    if (/Stale file handle/.test(String(e))) out.estale++;
    else out.errors.push(`parquet: ${String(e).slice(0, 200)}`);
  }
  if (out.errors.length > 10) break;
}
console.log(JSON.stringify(out));
