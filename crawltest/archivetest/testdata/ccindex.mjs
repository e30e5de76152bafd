// Runs Common Crawl's cc-index example queries in DuckDB (@duckdb/node-api), for
// TestCCIndexDuckDB: each query unchanged against an empty table of the flat schema
// (cc-index-create-table-flat.sql), then, with the crawl name in crawl = '…' replaced
// by ours, against "ccindex"."ccindex": a view over our Parquet files. Prints one
// JSON object: the column types of both tables, each query's outcome on both, and
// every row's url and WARC record place.
//
// usage: node ccindex.mjs NODE_MODULES QUERY_DIR PARQUET_DIR CRAWL_NAME
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const [nodeModules, queryDir, parquetDir, crawl] = process.argv.slice(2);
const { DuckDBInstance } = createRequire(join(nodeModules, 'x.js'))('@duckdb/node-api');

// The flat schema's columns, from Common Crawl's DDL: "name TYPE," lines, then the
// partition columns.
const ddl = readFileSync(join(queryDir, 'cc-index-create-table-flat.sql'), 'utf8');
const types = { STRING: 'VARCHAR', INT: 'INTEGER', SMALLINT: 'SMALLINT', TIMESTAMP: 'TIMESTAMP' };
const columns = [...ddl.matchAll(/^\s+([a-z0-9_]+)\s+(STRING|INT|SMALLINT|TIMESTAMP)[,)]/gm)]
  .map(m => `${m[1]} ${types[m[2]]}`);

async function database(setup) {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`CREATE SCHEMA ccindex; SET search_path = 'ccindex'; ${setup}`);
  return c;
}

const empty = await database(`CREATE TABLE ccindex.ccindex (${columns.join(', ')});`);
const ours = await database(`CREATE VIEW ccindex.ccindex AS SELECT * FROM read_parquet('${parquetDir}/crawl=*/subset=*/*.parquet', hive_partitioning = true);`);

async function describe(c) {
  const r = await c.runAndReadAll('DESCRIBE ccindex.ccindex');
  return r.getRowObjectsJson().map(o => [o.column_name, o.column_type]);
}

async function outcome(c, sql) {
  try {
    const r = await c.runAndReadAll(sql);
    return { ok: true, rows: r.currentRowCount };
  } catch (e) {
    return { ok: false, error: String(e.message).split('\n')[0] };
  }
}

const out = { columns: columns.length, empty: await describe(empty), ours: await describe(ours), queries: {} };
for (const f of readdirSync(queryDir).filter(f => f.endsWith('.sql') && f !== 'cc-index-create-table-flat.sql').sort()) {
  const sql = readFileSync(join(queryDir, f), 'utf8');
  const mine = sql.replace(/crawl = 'CC-MAIN-[0-9-]+'/g, `crawl = '${crawl}'`);
  out.queries[f] = { empty: await outcome(empty, sql), ours: await outcome(ours, mine) };
}
const rows = await ours.runAndReadAll('SELECT url, warc_filename, warc_record_offset, warc_record_length, subset FROM ccindex.ccindex');
out.rows = rows.getRowObjectsJson();
console.log(JSON.stringify(out));
