// sizes_peers.mjs - the peers of scripts/bench/sizes: the same input as Parquet
// (DuckDB, zstd and snappy) and as a Lance table.
//
//   node sizes_peers.mjs parquet IN OUT CODEC   IN (.csv or .jsonl, types as DuckDB reads
//                                               them) -> Parquet with CODEC (zstd, snappy)
//   node sizes_peers.mjs lance IN DIR           IN -> a Lance table in DIR (LanceDB's defaults)
//   node sizes_peers.mjs scan PQ COLUMN         the column read whole (SELECT sum(length(..)) or
//                                               sum(..)): ms of the best of 3
//   node sizes_peers.mjs chunks PQ              the bytes of PQ's column chunks (the sum of
//                                               total_compressed_size in its footer), in all
//                                               and by top-level column
// Each prints one JSON line.
import { DuckDBInstance } from '@duckdb/node-api';

const [cmd, a, b, c] = process.argv.slice(2);
const reader = (f) => (f.endsWith('.jsonl') ? `read_json('${f}', format='newline_delimited')` : `read_csv('${f}', header=true)`);
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

async function duck() {
  const db = await DuckDBInstance.create(':memory:');
  return db.connect();
}

if (cmd === 'parquet') {
  const con = await duck();
  const t0 = process.hrtime.bigint();
  await con.run(`COPY (SELECT * FROM ${reader(a)}) TO '${b}' (FORMAT parquet, COMPRESSION ${c})`);
  console.log(JSON.stringify({ ms: ms(t0) }));
} else if (cmd === 'lance') {
  const lancedb = await import('@lancedb/lancedb');
  const con = await duck();
  const r = await con.runAndReadAll(`SELECT * FROM ${reader(a)}`);
  // plain JS values: LanceDB infers the schema from them (NULLs become its own
  // nullable fields; BIGINT arrives as bigint, lists as arrays)
  const rows = r.getRowObjectsJS();
  const db = await lancedb.connect(b);
  const t0 = process.hrtime.bigint();
  const chunk = 50000;
  let tbl = null;
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    if (!tbl) tbl = await db.createTable('t', part, { mode: 'overwrite' });
    else await tbl.add(part);
  }
  console.log(JSON.stringify({ ms: ms(t0), rows: rows.length }));
} else if (cmd === 'scan') {
  const con = await duck();
  const ty = (await con.runAndReadAll(`SELECT typeof("${b}") FROM '${a}' LIMIT 1`)).getRows()[0][0];
  const expr = /VARCHAR|BLOB/.test(ty) ? `sum(length("${b}"))` : `count("${b}")`;
  let best = 1e30;
  for (let k = 0; k < 3; k++) {
    const t0 = process.hrtime.bigint();
    await con.runAndReadAll(`SELECT ${expr} FROM '${a}'`);
    best = Math.min(best, ms(t0));
  }
  console.log(JSON.stringify({ ms: best }));
} else if (cmd === 'chunks') {
  const con = await duck();
  const r = await con.runAndReadAll(`SELECT sum(total_compressed_size)::BIGINT FROM parquet_metadata('${a}')`);
  // and by top-level column (a list's leaf `tags, list, element` is `tags`)
  const per = await con.runAndReadAll(`SELECT split_part(path_in_schema, ', ', 1), sum(total_compressed_size)::BIGINT
                                       FROM parquet_metadata('${a}') GROUP BY 1`);
  const columns = Object.fromEntries(per.getRows().map(([name, bytes]) => [name, Number(bytes)]));
  console.log(JSON.stringify({ bytes: Number(r.getRows()[0][0]), columns }));
} else {
  console.error('usage: node sizes_peers.mjs parquet IN OUT CODEC | lance IN DIR | scan PQ COLUMN | chunks PQ');
  process.exit(2);
}
