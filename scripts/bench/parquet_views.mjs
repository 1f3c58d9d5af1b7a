// parquet_views.mjs - the DuckDB side of scripts/bench/parquet_views.
//   node parquet_views.mjs query RUNS SOURCE SQL
//       SOURCE is a Parquet file or a glob (the mount's parquet/*.parquet);
//       SQL names it as t. Runs it once to warm up, then RUNS times; prints
//       secs=MEDIAN all=a,b,c first=WARM-UP result=FIRST-VALUE (first: the
//       warm-up's seconds, what a fresh mount's daemon serves)
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
let first = 0;
const secs = [];
for (let i = 0; i <= Number(runs); i++) {
  const t = process.hrtime.bigint();
  const r = await c.runAndReadAll(sql);
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  result = JSON.stringify(r.getRowsJson()[0][0]);
  if (i) secs.push(s);
  else first = s;
}
secs.sort((a, b) => a - b);
const med = secs.length ? secs[(secs.length - 1) >> 1].toFixed(4) : '-';
console.log(`secs=${med} all=${secs.map((s) => s.toFixed(4)).join(',')} first=${first.toFixed(4)} result=${result}`);
