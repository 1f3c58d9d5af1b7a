// views.mjs MOUNT OUT.parquet [SQL] - DuckDB reads a mounted table's Parquet
// views (MOUNT/parquet/G.parquet, in row group order) and copies them to
// OUT.parquet, which ingot imports back for comparison with the table itself.
// With SQL, runs it over the views instead (as a view named t) and prints each
// result row as JSON.
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync } from 'node:fs';

const [mount, out, sql] = process.argv.slice(2);
const files = readdirSync(`${mount}/parquet`)
  .map((f) => parseInt(f, 10))
  .sort((a, b) => a - b)
  .map((g) => `'${mount}/parquet/${g}.parquet'`);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run('SET preserve_insertion_order = true');
await c.run(`CREATE VIEW t AS SELECT * FROM read_parquet([${files.join(', ')}])`);
if (sql) {
  const r = await c.runAndReadAll(sql);
  for (const row of r.getRowObjectsJson()) console.log(JSON.stringify(row));
} else {
  await c.run(`COPY (SELECT * FROM t) TO '${out}' (FORMAT parquet)`);
}
