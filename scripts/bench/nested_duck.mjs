// nested_duck.mjs - the DuckDB side of the nested benchmarks (sparse_sequences,
// wide_nested, embeddings): JSON Lines -> Parquet, per-column sizes, reads.
//
//   node nested_duck.mjs parquet JSONL OUT.parquet --columns FILE
//                        [--compression C] [--level N] [--row-group-size N] [--threads N]
//       COPY (SELECT .. FROM read_json(JSONL, columns = {..})) TO OUT (FORMAT parquet).
//       FILE lists the columns, one `name<TAB>DuckDB type[<TAB>b64]` per line (no
//       sniffing: 17,733 keys would take DuckDB's sniffer a long time); b64 columns
//       are read as VARCHAR and their strings turned into BLOBs with from_base64
//       (in lists and struct fields too). Prints secs=.. cpu=.. (user+sys, all threads).
//   node nested_duck.mjs sizes PARQUET
//       per top-level column: compressed and uncompressed bytes summed over its
//       leaves and row groups (parquet_metadata); one JSON object on stdout:
//       {"file_bytes":..,"row_groups":..,"columns":{"name":{"compressed":..,
//        "uncompressed":..,"encodings":"..","codec":".."}}}
//   node nested_duck.mjs scan PARQUET COLUMN [--warm N] [--threads N] [--sum-list]
//       read one whole column, fully materialised (every chunk in DuckDB's memory),
//       warm: one instance, one untimed run first. --sum-list instead computes
//       sum(list_sum(COLUMN)) (decodes everything, materialises one number) and
//       prints it as sum=..; the materialised read prints rows=.. values=..
//       (list elements, or rows x D for fixed-size arrays). Prints
//       warm n=.. secs_med=.. secs_min=.. secs_max=.. cpu_med=..
//   node nested_duck.mjs openread PARQUET COLUMN [--warm N] [--cold N] [--metadata-cache]
//       connect + SELECT COLUMN FROM read_parquet(..) fully materialised +
//       disconnect, like duck.mjs openread but for any column type (no sum check;
//       rows and non-NULL values are printed instead). --metadata-cache sets
//       parquet_metadata_cache = true (off by default: every query parses the
//       footer again).
//       Prints warm|cold n=.. total_med=.. total_p10=.. total_p90=.. (µs)
//
// Threads: DuckDB's default (one per core, here 2) unless --threads. DuckDB spills
// to $INGOT_BENCH_DATA/duckdb.tmp, never into the source tree.
import { DuckDBInstance } from '@duckdb/node-api';
import { execSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';

const opts = {}, pos = [];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--sum-list' || a === '--metadata-cache') opts[a.slice(2)] = true;
  else if (a.startsWith('--')) opts[a.slice(2)] = process.argv[++i];
  else pos.push(a);
}
const arg = (name, dflt) => opts[name] ?? dflt;

const DATA = process.env.INGOT_BENCH_DATA || '/var/tmp/ingot-bench';
const newInstance = async () => {
  const cfg = { temp_directory: `${DATA}/duckdb.tmp` };
  if (arg('threads')) cfg.threads = String(+arg('threads'));
  return DuckDBInstance.create(':memory:', cfg);
};
const nowUs = () => Number(process.hrtime.bigint()) / 1e3;
const sq = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;
function pct(v, p) {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.round(p * (s.length - 1))];
}
const dropCaches = () => execSync('sync; echo 3 > /proc/sys/vm/drop_caches');

// The SELECT expression turning a b64 column (strings) into BLOBs, by its type.
function b64expr(col, type) {
  const c = ident(col);
  if (type === 'VARCHAR') return `from_base64(${c})`;
  if (type === 'VARCHAR[]') return `list_transform(${c}, x -> from_base64(x))`;
  const m = /^STRUCT\((.*)\)$/.exec(type);
  if (!m) throw new Error(`b64 column ${col}: unsupported type ${type}`);
  const fields = m[1].split(/,\s*/).map((f) => f.trim().split(/\s+/));
  const parts = fields.map(([name, t]) => {
    const v = `${c}.${ident(name)}`;
    if (t === 'VARCHAR[]') return `${ident(name)} := list_transform(${v}, x -> from_base64(x))`;
    if (t === 'VARCHAR') return `${ident(name)} := from_base64(${v})`;
    return `${ident(name)} := ${v}`;
  });
  // a NULL struct stays NULL
  return `CASE WHEN ${c} IS NULL THEN NULL ELSE struct_pack(${parts.join(', ')}) END`;
}

async function cmdParquet() {
  const [, jsonl, out] = pos;
  const lines = readFileSync(arg('columns'), 'utf8').split('\n').filter((l) => l.trim());
  const cols = lines.map((l) => l.split('\t'));
  const colSpec = cols.map(([n, t]) => `${sq(n)}: ${sq(t)}`).join(', ');
  const select = cols.map(([n, t, k]) => (k === 'b64' ? `${b64expr(n, t)} AS ${ident(n)}` : ident(n))).join(', ');
  const src = `read_json(${sq(jsonl)}, format = 'newline_delimited', records = true, ` +
    `maximum_object_size = 1073741824, columns = {${colSpec}})`;
  const copts = [`FORMAT parquet`, `COMPRESSION ${arg('compression', 'zstd')}`];
  if (arg('level')) copts.push(`COMPRESSION_LEVEL ${+arg('level')}`);
  if (arg('row-group-size')) copts.push(`ROW_GROUP_SIZE ${+arg('row-group-size')}`);
  const inst = await newInstance();
  const c = await inst.connect();
  const cpu0 = process.cpuUsage();
  const t0 = nowUs();
  await c.run(`COPY (SELECT ${select} FROM ${src}) TO ${sq(out)} (${copts.join(', ')})`);
  const secs = (nowUs() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  console.log(`secs=${secs.toFixed(3)} cpu=${((cpu.user + cpu.system) / 1e6).toFixed(3)}`);
  c.disconnectSync();
}

async function cmdSizes() {
  const [, file] = pos;
  const c = await (await newInstance()).connect();
  const r = await c.runAndReadAll(
    `SELECT path_in_schema, total_compressed_size, total_uncompressed_size, encodings, compression, row_group_id ` +
    `FROM parquet_metadata(${sq(file)})`);
  const res = { file_bytes: statSync(file).size, row_groups: 0, columns: {} };
  const groups = new Set();
  for (const [path, comp, uncomp, enc, codec, rg] of r.getRows()) {
    groups.add(Number(rg));
    const top = String(path).split(/[.,]/)[0];
    const e = (res.columns[top] ??= { compressed: 0, uncompressed: 0, encodings: new Set(), codec: new Set() });
    e.compressed += Number(comp);
    e.uncompressed += Number(uncomp);
    for (const x of String(enc).split(',')) e.encodings.add(x.trim());
    e.codec.add(String(codec));
  }
  res.row_groups = groups.size;
  for (const e of Object.values(res.columns)) {
    e.encodings = [...e.encodings].join(',');
    e.codec = [...e.codec].join(',');
  }
  console.log(JSON.stringify(res));
}

async function cmdScan() {
  const [, file, col] = pos;
  const warm = +arg('warm', 3);
  const sumList = !!opts['sum-list'];
  const sql = sumList
    ? `SELECT sum(list_sum(${ident(col)}))::HUGEINT::VARCHAR FROM read_parquet(${sq(file)})`
    : `SELECT ${ident(col)} FROM read_parquet(${sq(file)})`;
  const inst = await newInstance();
  const once = async () => {
    const c = await inst.connect();
    const cpu0 = process.cpuUsage();
    const t0 = nowUs();
    const r = await c.run(sql);
    let rows = 0, extra = '';
    if (sumList) {
      const rr = await r.getRows();
      extra = String(rr[0][0]);
    } else {
      // fully materialised: pull every chunk
      for (;;) {
        const ch = await r.fetchChunk();
        if (!ch || ch.rowCount === 0) break;
        rows += ch.rowCount;
      }
    }
    const secs = (nowUs() - t0) / 1e6;
    const cpu = process.cpuUsage(cpu0);
    c.disconnectSync();
    return { secs, cpu: (cpu.user + cpu.system) / 1e6, rows, extra };
  };
  const first = await once();
  const s = [];
  for (let i = 0; i < warm; i++) s.push(await once());
  const secs = s.map((x) => x.secs);
  console.log(`warm n=${s.length} secs_med=${pct(secs, 0.5).toFixed(4)} secs_min=${pct(secs, 0).toFixed(4)} ` +
    `secs_max=${pct(secs, 1).toFixed(4)} cpu_med=${pct(s.map((x) => x.cpu), 0.5).toFixed(4)}` +
    (sumList ? ` sum=${first.extra}` : ` rows=${first.rows}`));
}

async function cmdOpenRead() {
  const [, file, col] = pos;
  const warm = +arg('warm', 100), cold = +arg('cold', 0);
  const sql = `SELECT ${ident(col)} FROM read_parquet(${sq(file)})`;
  const timed = async (inst) => {
    const t0 = nowUs();
    const c = await inst.connect();
    const r = await c.run(sql);
    let rows = 0;
    for (;;) {
      const ch = await r.fetchChunk();
      if (!ch || ch.rowCount === 0) break;
      rows += ch.rowCount;
    }
    c.disconnectSync();
    return { us: nowUs() - t0, rows };
  };
  const report = (name, s) => {
    const t = s.map((x) => x.us);
    console.log(`${name} n=${s.length} total_med=${pct(t, 0.5).toFixed(1)} total_p10=${pct(t, 0.1).toFixed(1)} ` +
      `total_p90=${pct(t, 0.9).toFixed(1)} total_min=${pct(t, 0).toFixed(1)} rows=${s[0].rows}`);
  };
  const setup = async (inst) => {
    if (!opts['metadata-cache']) return;
    const c = await inst.connect();
    await c.run('LOAD parquet');
    await c.run('SET GLOBAL parquet_metadata_cache = true');
    c.disconnectSync();
  };
  if (warm > 0) {
    const inst = await newInstance();
    await setup(inst);
    await timed(inst);
    const s = [];
    for (let i = 0; i < warm; i++) s.push(await timed(inst));
    report('warm', s);
  }
  if (cold > 0) {
    const s = [];
    for (let i = 0; i < cold; i++) {
      const inst = await newInstance();
      await setup(inst);
      dropCaches();
      s.push(await timed(inst));
    }
    report('cold', s);
  }
  // what was read, for the cross-check with ingot: rows and list elements
  const c = await (await newInstance()).connect();
  const r = await c.runAndReadAll(`SELECT count(*), count(${ident(col)}) FROM read_parquet(${sq(file)})`);
  const [rows, nonnull] = r.getRows()[0];
  console.log(`rows=${rows} nonnull=${nonnull}`);
}

const cmds = { parquet: cmdParquet, sizes: cmdSizes, scan: cmdScan, openread: cmdOpenRead };
const fn = cmds[pos[0]];
if (!fn) {
  console.error('usage: node nested_duck.mjs parquet|sizes|scan|openread ... (see the header)');
  process.exit(2);
}
await fn();
