// corpus.mjs DIR - DuckDB writes the Parquet files ingot's Parquet import is
// tested on, and beside each NAME.parquet a NAME.jsonl of the same rows as
// DuckDB reads them back from that file, with the values converted to what
// ingot stores (dates as days, timestamps as their integer unit, decimals as
// doubles, blobs as base64, maps as lists of {key, value}). The test imports
// both and compares every column. NAME.rows holds DuckDB's row count.
import { DuckDBInstance } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';

const dir = process.argv[2];
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const q = (s) => c.run(s);

// every type and null pattern, 3,000 rows (several pages, dictionary-friendly)
await q(`CREATE TABLE mixed AS SELECT
  i::BIGINT AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 200 - 100)::TINYINT END AS i8,
  (i * 13 % 60000 - 30000)::SMALLINT AS i16,
  CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919)::INTEGER END AS i32,
  (i * 1000003 - 1500000000)::BIGINT AS i64,
  (i % 256)::UTINYINT AS u8, (i * 17 % 65536)::USMALLINT AS u16,
  (i * 2654435761 % 4294967296)::UINTEGER AS u32, (i * 11400714819323198485 % 18446744073709551616)::UBIGINT AS u64,
  (i / 8.0)::FLOAT AS f32, CASE WHEN i % 13 = 0 THEN NULL ELSE i * 0.1 + 1e-7 END AS f64,
  (i % 2 = 0) AS flag,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'word ' || (i % 50) || ' ünïcödé' END AS s,
  repeat('x', i % 30) AS s_len,
  (i * 123.45)::DECIMAL(9, 2) AS dec9, (i * 98765.4321)::DECIMAL(18, 4) AS dec18,
  (i * 1.5)::DECIMAL(38, 3) AS dec38,
  DATE '2020-01-01' + (i % 1000)::INTEGER AS day,
  TIMESTAMP '2024-02-29 12:00:00' + to_microseconds(i * 1234567) AS ts,
  ('\\x' || lpad(printf('%x', i % 65536), 4, '0'))::BLOB AS raw,
  CASE WHEN i % 9 = 0 THEN NULL WHEN i % 9 = 1 THEN [] ELSE [i, NULL, i * 2] END AS li,
  CASE WHEN i % 4 = 0 THEN NULL ELSE {'a': i, 'b': CASE WHEN i % 3 = 0 THEN NULL ELSE 'b' || i END} END AS st,
  [[i], [], NULL, [i + 1, i + 2]]::BIGINT[][] AS ll,
  [{'k': 'x' || i, 'v': i}] AS lst,
  CASE WHEN i % 6 = 0 THEN NULL ELSE MAP {'one': i, 'two': i * 2} END AS m
  FROM range(3000) r(i)`);
const json_of = (src) => `SELECT id, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, flag, s, s_len,
  dec9::DOUBLE AS dec9, dec18::DOUBLE AS dec18, dec38::DOUBLE AS dec38,
  date_diff('day', DATE '1970-01-01', day) AS day, epoch_us(ts) AS ts, to_base64(raw) AS raw,
  li, st, ll, lst, map_entries(m) AS m FROM ${src}`;

const variants = [
  ['snappy', 'COMPRESSION snappy'],
  ['zstd', 'COMPRESSION zstd'],
  ['gzip', 'COMPRESSION gzip'],
  ['lz4', 'COMPRESSION lz4_raw'],
  ['none', 'COMPRESSION uncompressed'],
  ['v2', 'COMPRESSION zstd, PARQUET_VERSION V2'],
  ['v2_snappy', 'COMPRESSION snappy, PARQUET_VERSION V2'],
  ['nodict', 'COMPRESSION zstd, DICTIONARY_SIZE_LIMIT 1'],
  ['v2_nodict', 'COMPRESSION uncompressed, PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 1'],
  ['groups', 'COMPRESSION snappy, ROW_GROUP_SIZE 100'],
];
for (const [name, opts] of variants) {
  const f = `${dir}/${name}.parquet`;
  await q(`COPY mixed TO '${f}' (FORMAT parquet, ${opts})`);
  await q(`COPY (${json_of(`read_parquet('${f}')`)}) TO '${dir}/${name}.jsonl' (FORMAT json)`);
  const r = await c.runAndReadAll(`SELECT count(*)::INTEGER FROM read_parquet('${f}')`);
  writeFileSync(`${dir}/${name}.rows`, `${r.getRows()[0][0]}\n`);
}

// one-row groups, an empty file, a wide file
await q(`COPY (SELECT i AS a, 'v' || i AS b FROM range(5) r(i)) TO '${dir}/tiny_groups.parquet' (FORMAT parquet, ROW_GROUP_SIZE 1)`);
await q(`COPY (SELECT i AS a, 'v' || i AS b FROM range(5) r(i)) TO '${dir}/tiny_groups.jsonl' (FORMAT json)`);
writeFileSync(`${dir}/tiny_groups.rows`, '5\n');
await q(`COPY (SELECT i AS a FROM range(0) r(i)) TO '${dir}/empty.parquet' (FORMAT parquet)`);
const cols = Array.from({ length: 100 }, (_, k) => `(i * ${k + 1})::BIGINT AS c${k}`).join(', ');
await q(`COPY (SELECT ${cols} FROM range(500) r(i)) TO '${dir}/wide.parquet' (FORMAT parquet)`);
await q(`COPY (SELECT ${cols} FROM range(500) r(i)) TO '${dir}/wide.jsonl' (FORMAT json)`);
writeFileSync(`${dir}/wide.rows`, '500\n');
// strings whose bytes the test breaks (test_parquet.sh, not_utf8): plain and
// uncompressed, so 'pqAB' and 'CDrs' lie in the file as they are
await q(`COPY (SELECT i AS a, CASE i WHEN 3 THEN 'pqAB' WHEN 4 THEN 'CDrs' ELSE 'ok' || i END AS s
    FROM range(8) r(i)) TO '${dir}/utf8.parquet' (FORMAT parquet, COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 1)`);
// 10,000 columns (ints, doubles, strings with NULLs), 100 rows, and DuckDB's JSON of them
const cols10k = Array.from({ length: 10000 }, (_, k) =>
  k % 3 === 2 ? `CASE WHEN i % ${(k % 7) + 2} = 0 THEN NULL ELSE 'v' || (i * ${k + 1}) END AS s${k}`
  : k % 3 === 1 ? `(i * ${k + 1}) / 8.0 AS d${k}` : `(i * ${k + 1})::BIGINT AS c${k}`).join(', ');
await q(`COPY (SELECT ${cols10k} FROM range(100) r(i)) TO '${dir}/wide10k.parquet' (FORMAT parquet)`);
await q(`COPY (SELECT * FROM read_parquet('${dir}/wide10k.parquet')) TO '${dir}/wide10k.jsonl' (FORMAT json)`);
// brotli (and, with its codec changed in the footer, LZO, which ingot does not read)
await q(`COPY (SELECT i AS a FROM range(10) r(i)) TO '${dir}/brotli.parquet' (FORMAT parquet, COMPRESSION brotli)`);
