// parquet_duck.mjs - the DuckDB side of scripts/bench/parquet_import.
//   node parquet_duck.mjs gen ROWS OUT.parquet     a mixed table (ids, ints, floats,
//       a ~40-byte string of 10,000 distinct values, a list<int64> of 0-7 items, a
//       struct), snappy, DuckDB's defaults otherwise
//   node parquet_duck.mjs strings ROWS OUT.parquet   strings of four distributions:
//       few (16 values), pool (uniform over 100,000), skewed (a power law over
//       1,000,000: most rows share a few thousand values), uniq (every row its own)
//   node parquet_duck.mjs copy IN.parquet OUT.parquet [--threads N]
//       COPY (SELECT * FROM read_parquet(IN)) TO OUT (FORMAT parquet): prints secs=..
import { DuckDBInstance } from '@duckdb/node-api';
const [cmd, a, b] = process.argv.slice(2);
const threads = process.argv.includes('--threads') ? process.argv[process.argv.indexOf('--threads') + 1] : null;
const db = await DuckDBInstance.create(':memory:', threads ? { threads } : {});
const c = await db.connect();
const sq = (s) => `'${s.replace(/'/g, "''")}'`;
if (cmd === 'gen') {
  await c.run(`COPY (SELECT i AS id, (hash(i) % 1000000)::INTEGER AS bucket, (i * 7 % 100003)::BIGINT AS user_id,
      (hash(i * 3) % 100000) / 100.0 AS price, ((hash(i * 5) % 2000) / 1000.0 - 1)::FLOAT AS score,
      'caption number ' || (hash(i * 11) % 10000) || ' of the sample table' AS caption,
      list_transform(range((hash(i) % 8)::BIGINT), x -> (hash(i + x) % 1000000)::BIGINT) AS clicks,
      {'a': i % 1000, 'b': (i % 3 = 0)} AS meta
    FROM range(${Number(a)}) r(i)) TO ${sq(b)} (FORMAT parquet, COMPRESSION snappy)`);
} else if (cmd === 'strings') {
  await c.run(`COPY (SELECT i AS id,
      'colour-' || (hash(i * 13) % 16) AS few,
      'item ' || (hash(i * 17) % 100000) || ' of a pool' AS pool,
      'term-' || floor(pow((hash(i * 19) % 1000000) / 1e6, 20) * 1000000)::BIGINT AS skewed,
      'unique caption ' || i || ' ' || (hash(i) % 100000007) AS uniq
    FROM range(${Number(a)}) r(i)) TO ${sq(b)} (FORMAT parquet, COMPRESSION snappy)`);
} else if (cmd === 'copy') {
  const t = process.hrtime.bigint();
  await c.run(`COPY (SELECT * FROM read_parquet(${sq(a)})) TO ${sq(b)} (FORMAT parquet)`);
  console.log(`secs=${(Number(process.hrtime.bigint() - t) / 1e9).toFixed(3)}`);
} else {
  console.error('usage: node parquet_duck.mjs gen|strings ROWS OUT | copy IN OUT [--threads N]');
  process.exit(2);
}
