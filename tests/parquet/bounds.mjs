// bounds.mjs MOUNT COPY.parquet - the min/max statistics of a mounted table's
// Parquet views (format 9's chunk bounds), checked by DuckDB:
//  * every bound holds its view's values: stats min <= min(col) and
//    max(col) <= stats max, NaN aside (Parquet's statistics leave it out), and
//    a view whose group lost no row has them exact;
//  * filters DuckDB prunes views by give what they give over COPY.parquet
//    (DuckDB's own copy of the views, made by a full scan);
//  * the views bound at least one column (else there is nothing to test).
// Prints {"bounded": N, "exact": N, "unbounded": N, "views": N} and exits 1
// with the reason on the first failure.
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync } from 'node:fs';

const [mount, copy] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const rows = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJson();
const die = (why) => {
  console.error(why);
  process.exit(1);
};
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const numeric = /^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE)$/;
const out = { bounded: 0, exact: 0, unbounded: 0, views: 0 };

const views = readdirSync(`${mount}/parquet`).map((f) => `${mount}/parquet/${f}`);
for (const f of views) {
  out.views++;
  const types = {};
  for (const r of await rows(`DESCRIBE SELECT * FROM read_parquet(${q(f)})`)) types[r.column_name] = r.column_type;
  const meta = await rows(`SELECT path_in_schema AS p, stats_min_value AS mn, stats_max_value AS mx
    FROM parquet_metadata(${q(f)})`);
  for (const m of meta) {
    const t = types[m.p];
    if (!t || !numeric.test(t)) {
      if (m.mn !== null || m.mx !== null) die(`${f}: ${m.p} (${t}) has min/max statistics`);
      continue;
    }
    if (m.mn === null && m.mx === null) {
      out.unbounded++;
      continue;
    }
    out.bounded++;
    const col = `"${m.p}"`;
    const keep = t === 'FLOAT' || t === 'DOUBLE' ? `WHERE NOT isnan(${col})` : '';
    const [r] = await rows(`SELECT CAST(${q(m.mn)} AS ${t}) <= min(${col}) AS lo_holds,
        max(${col}) <= CAST(${q(m.mx)} AS ${t}) AS hi_holds,
        CAST(${q(m.mn)} AS ${t}) = min(${col}) AND CAST(${q(m.mx)} AS ${t}) = max(${col}) AS exact,
        CAST(min(${col}) AS VARCHAR) AS vmin, CAST(max(${col}) AS VARCHAR) AS vmax
      FROM read_parquet(${q(f)}) ${keep}`);
    if (r.vmin === null) continue; // no live value left: any bounds hold
    if (!r.lo_holds || !r.hi_holds)
      die(`${f}: ${m.p}: statistics [${m.mn}, ${m.mx}] do not hold the values [${r.vmin}, ${r.vmax}]`);
    if (r.exact) out.exact++;
  }
}
if (!out.bounded) die(`no view bounds any column: ${JSON.stringify(out)}`);

// filters DuckDB skips views by: each must count what a full scan counts
const filters = [
  'id BETWEEN -100 AND 50', 'id > 700', 'id < -650', 'i8 < -120', 'u32 > 4000000000', 'u64 > 18000000000000000000',
  'f32 > 990', 'f32 < -990', 'f64 > 1000000', 'f64 = 0', 'q > 9.5', 'i16 BETWEEN -100 AND 100',
];
const all = `read_parquet([${views.map(q).join(', ')}])`;
for (const w of filters) {
  const [a] = await rows(`SELECT count(*) AS n, sum(id) AS s FROM ${all} WHERE ${w}`);
  const [b] = await rows(`SELECT count(*) AS n, sum(id) AS s FROM read_parquet(${q(copy)}) WHERE ${w}`);
  if (a.n !== b.n || a.s !== b.s) die(`WHERE ${w}: views ${JSON.stringify(a)}, a full scan's copy ${JSON.stringify(b)}`);
}
console.log(JSON.stringify(out));
