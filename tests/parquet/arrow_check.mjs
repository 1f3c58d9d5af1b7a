// arrow_check.mjs MOUNT [COLUMNS]: every MOUNT/arrow/G.arrow, read by the
// apache-arrow package, must hold exactly the table's live rows, in row id
// order, each column equal to the row's JSON in MOUNT/rows/ID. COLUMNS (comma
// separated) is the list of fields the schema must show, in order. Prints the
// number of rows checked; exits 1 naming the file, row and column that differ.
import { readFileSync, readdirSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';

const [mount, want] = process.argv.slice(2);
const die = (msg) => { console.error(msg); process.exit(1); };
// JSON with big integers kept as text (ingot renders uint64 and int64 exactly)
const parse = (s) => JSON.parse(s.replace(/(?<=[:\[,])(-?\d{16,})(?=[,\]\}])/g, '"$1"'));
const hex = (u8) => '\\x' + Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');

function same(a, j, type) {
  if (j === null || j === undefined) return a === null;
  if (a === null) return false;
  const t = String(type);
  if (typeof a === 'bigint') return a.toString() === String(j);
  if (a instanceof Uint8Array) return hex(a) === j;
  // NaN and the infinities: JSON strings in rows/ID
  if (typeof a === 'number' && ['NaN', 'Infinity', '-Infinity'].includes(j)) return Object.is(a, Number(j));
  if (typeof a === 'number') {
    if (t.startsWith('Float32')) return Object.is(Math.fround(j), a) || (j === 0 && a === 0);
    return Object.is(j, a) || (j === 0 && a === 0);
  }
  // a nested column shown as its rows' JSON (Utf8): the same value once parsed
  if (typeof a === 'string' && typeof j === 'object') return JSON.stringify(parse(a)) === JSON.stringify(j);
  if (typeof a === 'string' || typeof a === 'boolean') return a === j;
  // structs: member by member (a NULL struct was handled above)
  if (t.startsWith('Struct')) return typeof j === 'object' && !Array.isArray(j) &&
    type.children.every((c) => same(a[c.name], j[c.name], c.type));
  // lists and fixed-size lists: element by element
  const items = [...a];
  if (!Array.isArray(j) || j.length !== items.length) return false;
  const child = type.children[0].type;
  return items.every((x, k) => same(x, j[k], child));
}

const files = readdirSync(`${mount}/arrow`).sort((x, y) => parseInt(x) - parseInt(y));
const rows = readdirSync(`${mount}/rows`).map(Number).sort((x, y) => x - y);
let n = 0;
for (const f of files) {
  const t = tableFromIPC(readFileSync(`${mount}/arrow/${f}`));
  const names = t.schema.fields.map((x) => x.name).join(',');
  if (want !== undefined && names !== want) die(`${f}: fields ${names}, want ${want}`);
  const id = t.schema.fields.findIndex((x) => x.name === 'id');
  for (let i = 0; i < t.numRows; i++, n++) {
    const rid = rows[n];
    const row = t.get(i);
    if (id >= 0 && Number(row.id) !== rid) die(`${f} row ${i}: id ${row.id}, the ${n}th live row is ${rid}`);
    const j = parse(readFileSync(`${mount}/rows/${rid}`, 'utf8'));
    for (const fld of t.schema.fields) {
      const a = row[fld.name];
      if (!same(a, j[fld.name], fld.type))
        die(`${f} row ${i} (id ${rid}) column ${fld.name}: arrow ${JSON.stringify(a?.toJSON?.() ?? a, (k, v) => typeof v === 'bigint' ? v.toString() : v)}, rows/ ${JSON.stringify(j[fld.name])}`);
    }
  }
}
if (n !== rows.length) die(`the views hold ${n} rows, rows/ lists ${rows.length}`);
console.log(n);
