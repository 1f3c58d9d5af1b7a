// erase_duck.mjs - the DuckDB side of scripts/bench/erase_cost (peer: rewriting Parquet).
//
//   node erase_duck.mjs parquet CSV SCHEMA OUT.parquet
//       CSV -> Parquet (zstd) with the column types of an ingot schema file
//       (int64 -> BIGINT, float64 -> DOUBLE, string -> VARCHAR), no sniffing.
//   node erase_duck.mjs rewrite IN.parquet IDS.txt OUT.parquet
//       COPY (SELECT * FROM read_parquet(IN) WHERE event_id NOT IN (ids)) TO OUT
//       (FORMAT parquet, COMPRESSION zstd): the whole file rewritten without the rows
//       whose event_id (= ingot row id) is listed in IDS.txt (one per line). Then
//       fsync(OUT), because ingot's import and erase fsync what they write.
//
// Both print one JSON line: secs (the COPY), fsync_secs, bytes (output file size),
// and this process's /proc/self/io deltas over the COPY + fsync (wchar, write_bytes,
// read_bytes, rchar), cpu_secs (user + sys of all DuckDB threads).
// DuckDB uses its default threads (one per core). A fresh in-memory instance each run.
import { DuckDBInstance } from '@duckdb/node-api';
import { closeSync, fsyncSync, openSync, readFileSync, statSync } from 'node:fs';

const DATA = process.env.INGOT_BENCH_DATA || '/var/tmp/ingot-bench';
const CONFIG = { temp_directory: `${DATA}/duckdb.tmp` };
const sq = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;
const nowS = () => Number(process.hrtime.bigint()) / 1e9;
function io() {
  const o = {};
  for (const l of readFileSync('/proc/self/io', 'utf8').split('\n')) {
    const m = /^(\w+): (\d+)$/.exec(l);
    if (m) o[m[1]] = Number(m[2]);
  }
  return o;
}

async function timedCopy(sql, out) {
  const inst = await DuckDBInstance.create(':memory:', CONFIG);
  const c = await inst.connect();
  const io0 = io(), cpu0 = process.cpuUsage(), t0 = nowS();
  await c.run(sql);
  const t1 = nowS();
  const fd = openSync(out, 'r+');
  fsyncSync(fd);
  closeSync(fd);
  const t2 = nowS(), cpu = process.cpuUsage(cpu0), io1 = io();
  c.closeSync?.();
  const d = (k) => io1[k] - io0[k];
  console.log(JSON.stringify({
    secs: +(t1 - t0).toFixed(4), fsync_secs: +(t2 - t1).toFixed(4),
    bytes: statSync(out).size, wchar: d('wchar'), write_bytes: d('write_bytes'),
    rchar: d('rchar'), read_bytes: d('read_bytes'),
    cpu_secs: +((cpu.user + cpu.system) / 1e6).toFixed(3),
  }));
}

const [cmd, ...a] = process.argv.slice(2);
if (cmd === 'parquet') {
  const [csv, schema, out] = a;
  const map = { int64: 'BIGINT', float64: 'DOUBLE', string: 'VARCHAR' };
  const cols = readFileSync(schema, 'utf8').split('\n').filter((l) => l.trim())
    .map((l) => { const [n, t] = l.trim().split(/\s+/); return `${sq(n)}: '${map[t.replace('?', '')]}'`; });
  await timedCopy(`COPY (SELECT * FROM read_csv(${sq(csv)}, header=true, auto_detect=false, delim=',', ` +
    `quote='"', columns={${cols.join(',')}})) TO ${sq(out)} (FORMAT parquet, COMPRESSION zstd)`, out);
} else if (cmd === 'rewrite') {
  const [inp, ids, out] = a;
  await timedCopy(`COPY (SELECT * FROM read_parquet(${sq(inp)}) WHERE ${ident('event_id')} NOT IN ` +
    `(SELECT id FROM read_csv(${sq(ids)}, header=false, auto_detect=false, columns={'id': 'BIGINT'}))) ` +
    `TO ${sq(out)} (FORMAT parquet, COMPRESSION zstd)`, out);
} else {
  console.error('usage: node erase_duck.mjs parquet CSV SCHEMA OUT | rewrite IN IDS OUT');
  process.exit(2);
}
