// types.mjs write OUT.parquet | compare SRC.parquet MOUNT | arrow MOUNT - the logical types
// round trip. `write`: DuckDB writes a Parquet file with DATE, TIME,
// TIMESTAMP, TIMESTAMPTZ, TIMESTAMP_MS, TIMESTAMP_NS, DECIMAL (int32, int64
// and 16-byte), UUID and BLOB columns: NULLs, dates before 1970 and negative
// years, leap days, several row groups. `compare`: DuckDB reads the source
// and a mount's Parquet views and prints, as JSON, the view's column types and
// the rows each side has that the other lacks (EXCEPT ALL both ways).
// `arrow`: apache-arrow reads MOUNT/arrow/0.arrow and prints its fields'
// types and row 1's values (as Arrow gives them: days and instants in ms).
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { readdirSync, readFileSync } from 'node:fs';

const [mode, a, b] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run("SET TimeZone = 'UTC'");
const rows = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJson();

if (mode === 'arrow') {
  const t = tableFromIPC(readFileSync(`${a}/arrow/0.arrow`));
  const row = Object.entries(t.get(1).toJSON()).map(([k, v]) => [k, v === null ? null : String(v)]);
  console.log(JSON.stringify({ fields: t.schema.fields.map((f) => `${f.name} ${f.type}`), row: Object.fromEntries(row) }));
} else if (mode === 'write') {
  await c.run(`COPY (SELECT
    i::BIGINT AS id,
    CASE WHEN i % 7 = 3 THEN NULL ELSE DATE '2024-01-01' + (i * 37 % 4000 - 2000)::INTEGER END AS day,
    CASE i WHEN 0 THEN DATE '2024-01-01' WHEN 1 THEN DATE '2024-02-29' WHEN 2 THEN DATE '1969-12-31'
           WHEN 4 THEN DATE '-0044-03-15' WHEN 5 THEN DATE '1900-02-28' ELSE DATE '1970-01-01' + i::INTEGER END AS edge,
    TIME '00:00:00' + to_microseconds(i * 1234567891 % 86400000000) AS tod,
    CASE WHEN i % 5 = 1 THEN NULL ELSE TIMESTAMP '2024-01-01 20:34:56.123456' + to_microseconds(i * 98765432101 - 60000000000000) END AS ts,
    (TIMESTAMP '1969-07-20 20:17:40' + to_microseconds(i * 777777777))::TIMESTAMPTZ AS tstz,
    (TIMESTAMP '2000-02-29 23:59:59.999' + to_milliseconds(i * 86399999))::TIMESTAMP_MS AS ts_ms,
    (TIMESTAMP_NS '2024-01-01 00:00:00.123456789' + to_microseconds(i * 3))::TIMESTAMP_NS AS ts_ns,
    CASE WHEN i % 6 = 2 THEN NULL ELSE (i * 1.23 - 500)::DECIMAL(7, 2) END AS dec7,
    (i * 98765.4321 - 1e9)::DECIMAL(12, 2) AS dec12,
    ((i::HUGEINT * 12345678901234567 - 99999999999999999999)::DECIMAL(38, 0) / 1000)::DECIMAL(38, 10) AS dec38,
    CASE WHEN i % 4 = 0 THEN NULL ELSE ('6ba7b810-9dad-11d1-80b4-' || lpad(printf('%x', i), 12, '0'))::UUID END AS u
    FROM range(2000) r(i)) TO '${a}' (FORMAT parquet, ROW_GROUP_SIZE 500)`);
} else {
  const views = readdirSync(`${b}/parquet`)
    .map((f) => parseInt(f, 10))
    .sort((x, y) => x - y)
    .map((g) => `'${b}/parquet/${g}.parquet'`);
  await c.run(`CREATE VIEW source AS SELECT * FROM read_parquet('${a}')`);
  await c.run(`CREATE VIEW view AS SELECT * FROM read_parquet([${views.join(', ')}])`);
  const types = {};
  for (const r of await rows('DESCRIBE view')) types[r.column_name] = r.column_type;
  const only_source = await rows('SELECT * FROM source EXCEPT ALL SELECT * FROM view');
  const only_view = await rows('SELECT * FROM view EXCEPT ALL SELECT * FROM source');
  const n = (await rows('SELECT count(*) AS n FROM view'))[0].n;
  console.log(JSON.stringify({ types, rows: Number(n), only_source: only_source.slice(0, 3), n_only_source: only_source.length,
    only_view: only_view.slice(0, 3), n_only_view: only_view.length }));
}
