// parquet_views.mjs - the DuckDB side of scripts/bench/parquet_views.
//   node parquet_views.mjs query RUNS SOURCE SQL
//       SOURCE is a Parquet file or a glob (the mount's parquet/*.parquet);
//       SQL names it as t. Runs it once to warm up, then RUNS times; prints
//       secs=MEDIAN all=a,b,c result=FIRST-VALUE
import { DuckDBInstance } from '@duckdb/node-api';
const [cmd, runs, source, sql] = process.argv.slice(2);
if (cmd !== 'query') {
  console.error('usage: node parquet_views.mjs query RUNS SOURCE SQL');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`CREATE VIEW t AS SELECT * FROM read_parquet('${source.replace(/'/g, "''")}')`);
let result = null;
const secs = [];
for (let i = 0; i <= Number(runs); i++) {
  const t = process.hrtime.bigint();
  const r = await c.runAndReadAll(sql);
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  result = JSON.stringify(r.getRowsJson()[0][0]);
  if (i) secs.push(s);
}
secs.sort((a, b) => a - b);
console.log(`secs=${secs[(secs.length - 1) >> 1].toFixed(4)} all=${secs.map((s) => s.toFixed(4)).join(',')} result=${result}`);
