// blob_lance.mjs - the Lance side of scripts/bench/blob_point (LanceDB for Node).
// Install: npm install --prefix scripts/bench/lance (package.json pins the versions).
//
//   node blob_lance.mjs create OBJDIR ROWS OBJECTS DBDIR
//       A LanceDB table 'frames' (id int64, frames list<binary>) at DBDIR from
//       OBJDIR/R_K.bin, R < ROWS, K < OBJECTS, one row per R in id order, written in
//       batches of 8 rows with the default data storage version.
//   node blob_lance.mjs fetch DBDIR OBJDIR R:K[,R:K...] --mode cold|warm --how where|take
//       For each sample, row R's frames, then element K (compared with OBJDIR/R_K.bin,
//       untimed):
//         where: table.query().where('id = R').select(['frames']).limit(1).toArrow()
//         take:  table.takeOffsets([R]).select(['frames']).toArrow()   (row R is at offset R)
//       cold: a fresh connection per sample (lancedb.connect, untimed), then
//             `sync; echo 3 > /proc/sys/vm/drop_caches`; the timed part is
//             openTable + the query (open_us says how much of it the open took).
//       warm: one connection and table; each sample runs once untimed, then timed.
//       Prints one JSON line per sample: r, k, us, open_us, rchar, read_bytes
//       (this process's /proc/self/io deltas over the timed part), len.
import * as lancedb from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const nowUs = () => Number(process.hrtime.bigint()) / 1e3;
function io() {
  const o = {};
  for (const l of readFileSync('/proc/self/io', 'utf8').split('\n')) {
    const m = /^(\w+): (\d+)$/.exec(l);
    if (m) o[m[1]] = Number(m[2]);
  }
  return o;
}
const dropCaches = () => execSync('sync; echo 3 > /proc/sys/vm/drop_caches');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const pos = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const schema = new arrow.Schema([
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('frames', new arrow.List(new arrow.Field('item', new arrow.Binary(), true)), false),
]);

async function create() {
  const [, objdir, nrows, nobj, dbdir] = pos;
  const db = await lancedb.connect(dbdir);
  const t0 = nowUs();
  let tbl = null;
  for (let r0 = 0; r0 < +nrows; r0 += 8) {
    const rows = [];
    for (let r = r0; r < Math.min(+nrows, r0 + 8); r++) {
      const frames = [];
      for (let k = 0; k < +nobj; k++) frames.push(readFileSync(`${objdir}/${r}_${k}.bin`));
      rows.push({ id: BigInt(r), frames });
    }
    if (!tbl) tbl = await db.createTable('frames', rows, { schema, mode: 'overwrite' });
    else await tbl.add(rows);
  }
  console.log(JSON.stringify({ secs: (nowUs() - t0) / 1e6, rows: await tbl.countRows(), version: await tbl.version() }));
}

async function fetch() {
  const [, dbdir, objdir, list] = pos;
  const mode = opt('--mode', 'warm'), how = opt('--how', 'take');
  const samples = list.split(',').map((s) => s.split(':').map(Number));
  let db, tbl;
  async function once(r, k, open) {
    const io0 = io(), t0 = nowUs();
    if (open) tbl = await db.openTable('frames');
    const t1 = nowUs();
    const res = how === 'where'
      ? await tbl.query().where(`id = ${r}`).select(['frames']).limit(1).toArrow()
      : await tbl.takeOffsets([r]).select(['frames']).toArrow();
    if (res.numRows !== 1) throw new Error(`row ${r}: ${res.numRows} rows`);
    const obj = res.getChild('frames').get(0).get(k);
    const t2 = nowUs(), io1 = io();
    return { us: t2 - t0, open_us: t1 - t0, rchar: io1.rchar - io0.rchar, read_bytes: io1.read_bytes - io0.read_bytes, obj };
  }
  if (mode === 'warm') {
    db = await lancedb.connect(dbdir);
    tbl = await db.openTable('frames');
  }
  for (const [r, k] of samples) {
    if (mode === 'cold') {
      db = await lancedb.connect(dbdir);
      dropCaches();
    } else {
      await once(r, k, false);
    }
    const m = await once(r, k, mode === 'cold');
    const want = readFileSync(`${objdir}/${r}_${k}.bin`);
    if (Buffer.compare(Buffer.from(m.obj), want) !== 0) throw new Error(`row ${r} object ${k}: wrong bytes`);
    console.log(JSON.stringify({ r, k, us: Math.round(m.us), open_us: Math.round(m.open_us), rchar: m.rchar,
      read_bytes: m.read_bytes, len: m.obj.length }));
    if (mode === 'cold') {
      tbl.close?.();
      db.close?.();
    }
  }
}

const [cmd] = pos;
if (cmd === 'create') await create();
else if (cmd === 'fetch') await fetch();
else {
  console.error('usage: node blob_lance.mjs create OBJDIR ROWS OBJECTS DBDIR | fetch DBDIR OBJDIR R:K,.. --mode cold|warm --how where|take');
  process.exit(2);
}
