// duck.mjs - the DuckDB side of the benchmarks (peer: Parquet through DuckDB).
//
//   node duck.mjs parquet CSV OUT.parquet [--int64-columns N] [--compression C]
//       CSV -> Parquet with COPY. With --int64-columns the CSV is read without
//       sniffing as N BIGINT columns named c00000.. (DuckDB's sniffer is very slow
//       on wide files); otherwise read_csv auto-detects. --threads N limits
//       DuckDB's threads. Prints secs=.. cpu=.. (user+sys of all threads)
//   node duck.mjs openread PARQUET COLUMN [--warm N] [--cold N]
//       time connect + SELECT COLUMN FROM read_parquet(..), fully materialised
//       (DuckDBMaterializedResult: every chunk in DuckDB's memory), + disconnect.
//       warm: one instance, a fresh connection per run. cold: a fresh instance
//       per run, created before `sync; echo 3 > /proc/sys/vm/drop_caches`.
//       Prints lines like bench_open_read: warm n=.. total_med=.. (µs)
//   node duck.mjs scan PARQUET COLUMN [--warm N] [--cold N] [--sum]
//       one full read of a big column: materialised (or sum() with --sum);
//       prints warm|cold n=.. secs_med=.. gbps_med=.. (8 bytes per value)
//   node duck.mjs column PARQUET COLUMN [--warm N] [--text OUT.csv]
//       read one column of a long table, warm: materialised, or with --text
//       rendered as CSV text into OUT.csv (a regular file: never /dev/null, which
//       COPY's temporary-file-and-rename would replace); prints warm n=.. secs_med=..
//   node duck.mjs rows PARQUET OUT.jsonl [--warm N]
//       every row as JSON Lines into OUT.jsonl (COPY ... (FORMAT json)), warm:
//       prints warm n=.. secs_med=.. cpu_med=..
//   node duck.mjs floor [--warm N]
//       connect + SELECT 42 + disconnect: the cost of the Node binding itself
//
// Threads: DuckDB's default (one per core, here 2). Times include the Node
// binding's async round trip (see `floor`).
import { DuckDBInstance } from '@duckdb/node-api';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const opts = {}, pos = [];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--sum') opts.sum = true;
  else if (a.startsWith('--')) opts[a.slice(2)] = process.argv[++i];
  else pos.push(a);
}
const arg = (name, dflt) => opts[name.slice(2)] ?? dflt;
const flag = (name) => !!opts[name.slice(2)];

// DuckDB spills to .tmp/ in the working directory by default: keep it in the
// benchmark data directory, never in the source tree.
const DATA = process.env.INGOT_BENCH_DATA || '/var/tmp/ingot-bench';
const CONFIG = { temp_directory: `${DATA}/duckdb.tmp` };
const newInstance = () => DuckDBInstance.create(':memory:', CONFIG);

const nowUs = () => Number(process.hrtime.bigint()) / 1e3;
function ioKiB() {
  const m = /read_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}
function dropCaches() {
  execSync('sync; echo 3 > /proc/sys/vm/drop_caches');
}
function pct(v, p) {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.round(p * (s.length - 1))];
}
const sq = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;

async function cmdParquet() {
  const [, csv, out] = pos;
  const n = arg('--int64-columns');
  const comp = arg('--compression', 'snappy');
  let src;
  if (n) {
    const cols = [];
    for (let i = 0; i < +n; i++) cols.push(`'c${String(i).padStart(5, '0')}': 'BIGINT'`);
    src = `read_csv(${sq(csv)}, header=true, auto_detect=false, delim=',', quote='"', columns={${cols.join(',')}})`;
  } else {
    src = `read_csv(${sq(csv)})`;
  }
  const inst = await newInstance();
  const c = await inst.connect();
  if (arg('--threads')) await c.run(`SET threads = ${+arg('--threads')}`);
  const cpu0 = process.cpuUsage();
  const t0 = nowUs();
  await c.run(`COPY (SELECT * FROM ${src}) TO ${sq(out)} (FORMAT parquet, COMPRESSION ${comp})`);
  const secs = (nowUs() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  console.log(`secs=${secs.toFixed(3)} cpu=${((cpu.user + cpu.system) / 1e6).toFixed(3)}`);
  c.disconnectSync();
}

function report(name, samples) {
  const tot = samples.map((s) => s.us);
  const kib = samples.map((s) => s.kib);
  console.log(`${name} n=${samples.length} total_med=${pct(tot, 0.5).toFixed(2)} total_p10=${pct(tot, 0.1).toFixed(2)} ` +
    `total_p90=${pct(tot, 0.9).toFixed(2)} total_min=${pct(tot, 0).toFixed(2)} disk_kib_med=${pct(kib, 0.5).toFixed(0)}`);
}

async function timedQuery(inst, sql, check) {
  const io0 = ioKiB();
  const t0 = nowUs();
  const c = await inst.connect();
  const r = await c.run(sql);
  const rows = r.rowCount;
  c.disconnectSync();
  const us = nowUs() - t0;
  if (check) check(rows, r);
  return { us, kib: ioKiB() - io0 };
}

async function cmdOpenRead() {
  const [, file, col] = pos;
  const warm = +arg('--warm', 200), cold = +arg('--cold', 0);
  const sql = `SELECT ${ident(col)} FROM read_parquet(${sq(file)})`;
  let rows0 = -1;
  const check = (rows) => {
    if (rows0 < 0) rows0 = rows;
    if (rows !== rows0 || rows === 0) throw new Error(`rows ${rows}`);
  };
  if (warm > 0) {
    const inst = await newInstance();
    await timedQuery(inst, sql, check); // untimed
    const s = [];
    for (let i = 0; i < warm; i++) s.push(await timedQuery(inst, sql, check));
    report('warm', s);
  }
  if (cold > 0) {
    const s = [];
    for (let i = 0; i < cold; i++) {
      const inst = await newInstance();
      dropCaches();
      s.push(await timedQuery(inst, sql, check));
    }
    report('cold', s);
  }
  const inst = await newInstance();
  const r = await (await inst.connect()).runAndReadAll(`SELECT sum(${ident(col)})::BIGINT FROM read_parquet(${sq(file)})`);
  console.log(`rows ${rows0}`);
  console.log(`sum ${r.getRows()[0][0]}`);
}

async function cmdScan() {
  const [, file, col] = pos;
  const warm = +arg('--warm', 3), cold = +arg('--cold', 0);
  const sql = flag('--sum')
    ? `SELECT sum(${ident(col)}) FROM read_parquet(${sq(file)})`
    : `SELECT ${ident(col)} FROM read_parquet(${sq(file)})`;
  const meta = await (await (await newInstance()).connect())
    .runAndReadAll(`SELECT count(*) FROM read_parquet(${sq(file)})`);
  const rows = Number(meta.getRows()[0][0]);
  const bytes = rows * 8;
  const line = (name, s) => {
    const secs = s.map((x) => x.us / 1e6);
    const med = pct(secs, 0.5);
    console.log(`${name} n=${s.length} secs_med=${med.toFixed(4)} secs_min=${pct(secs, 0).toFixed(4)} ` +
      `gbps_med=${(bytes / med / 1e9).toFixed(3)} disk_mib_med=${(pct(s.map((x) => x.kib), 0.5) / 1024).toFixed(0)}`);
  };
  if (warm > 0) {
    const inst = await newInstance();
    await timedQuery(inst, sql);
    const s = [];
    for (let i = 0; i < warm; i++) s.push(await timedQuery(inst, sql));
    line('warm', s);
  }
  if (cold > 0) {
    const s = [];
    for (let i = 0; i < cold; i++) {
      const inst = await newInstance();
      dropCaches();
      s.push(await timedQuery(inst, sql));
    }
    line('cold', s);
  }
  console.log(`rows ${rows}`);
}

// A query run once to warm, then `warm` times; its median wall and CPU.
async function warmRuns(sql, warm) {
  const inst = await newInstance();
  await timedQuery(inst, sql);
  const s = [];
  for (let i = 0; i < warm; i++) {
    const cpu0 = process.cpuUsage();
    const r = await timedQuery(inst, sql);
    const cpu = process.cpuUsage(cpu0);
    s.push({ secs: r.us / 1e6, cpu: (cpu.user + cpu.system) / 1e6 });
  }
  console.log(`warm n=${s.length} secs_med=${pct(s.map((x) => x.secs), 0.5).toFixed(4)} ` +
    `cpu_med=${pct(s.map((x) => x.cpu), 0.5).toFixed(4)}`);
}

async function cmdColumn() {
  const [, file, col] = pos;
  const text = arg('--text');
  const sel = `SELECT ${ident(col)} FROM read_parquet(${sq(file)})`;
  await warmRuns(text ? `COPY (${sel}) TO ${sq(text)} (FORMAT csv, HEADER false)` : sel, +arg('--warm', 3));
}

async function cmdRows() {
  const [, file, out] = pos;
  await warmRuns(`COPY (SELECT * FROM read_parquet(${sq(file)})) TO ${sq(out)} (FORMAT json)`, +arg('--warm', 3));
}

async function cmdFloor() {
  const warm = +arg('--warm', 200);
  const inst = await newInstance();
  await timedQuery(inst, 'SELECT 42');
  const s = [];
  for (let i = 0; i < warm; i++) s.push(await timedQuery(inst, 'SELECT 42'));
  report('floor', s);
}

const cmds = { parquet: cmdParquet, openread: cmdOpenRead, scan: cmdScan, column: cmdColumn, rows: cmdRows, floor: cmdFloor };
const fn = cmds[pos[0]];
if (!fn) {
  console.error('usage: node duck.mjs parquet|openread|scan|column|rows|floor ... (see the header)');
  process.exit(2);
}
await fn();
