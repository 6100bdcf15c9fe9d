#!/usr/bin/env node
// node bench/workbook-readers.mjs (after npm run build; SheetJS and read-excel-file installed in
// a scratch folder given by READERS_DIR, as they are not gw's dependencies): the workbook readers
// gw could use, measured on the producers' fixtures (test/fixtures/finance) and on a
// 100,000-row sheet: which sheet each takes by default, whether it reads the red negative as
// negative, whether it reads .ods, and its peak RSS and time. Each run in a process of its own.
import {spawnSync} from 'node:child_process'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {Worker} from 'node:worker_threads'

import {ROOT, tempDir} from './lib.mjs'

const FIXTURES = join(ROOT, 'test/fixtures/finance')
const READERS = ['gw (yauzl + saxes)', 'exceljs stream', 'SheetJS xlsx 0.18.5', 'read-excel-file']

/** The rows of the default sheet (or `sheet`) as arrays of values. */
async function* readWith(reader, path, sheet) {
  const external = createRequire(join(process.env.READERS_DIR ?? ROOT, 'package.json'))
  if (reader.startsWith('gw')) {
    const worker = new Worker(new URL(pathToFileURL(join(ROOT, 'dist/lib/files/workbook-worker.js'))), {
      workerData: {path, wanted: sheet},
    })
    const next = () => new Promise((resolve) => worker.once('message', resolve))
    const opened = await next()
    if (opened.type !== 'opened') throw new Error(opened.message)
    for (;;) {
      worker.postMessage('more')
      const message = await next()
      if (message.type !== 'rows') break
      for (const row of message.rows)
        yield row.record.map((text, i) => (row.notes?.[i] ? Number(row.notes[i].value) : text))
    }
    await worker.terminate()
  } else if (reader === 'exceljs stream') {
    const {default: ExcelJS} = await import('exceljs')
    const book = new ExcelJS.stream.xlsx.WorkbookReader(path, {
      sharedStrings: 'cache',
      styles: 'cache',
      worksheets: 'emit',
    })
    for await (const ws of book) {
      if (sheet && ws.name !== sheet) {
        for await (const _ of ws) void _
        continue
      }
      for await (const row of ws) yield row.values.slice(1)
      break
    }
  } else if (reader.startsWith('SheetJS')) {
    const XLSX = external('xlsx')
    const book = XLSX.readFile(path, {dense: true})
    const name = sheet ?? book.SheetNames[0]
    for (const row of XLSX.utils.sheet_to_json(book.Sheets[name], {header: 1, raw: true})) yield row
  } else {
    const {default: read} = await import(pathToFileURL(external.resolve('read-excel-file/node')))
    const result = await read(path, sheet ? {sheet} : undefined)
    // Newer versions answer every sheet as {sheet, data}; older ones the rows of the first.
    for (const row of result[0]?.data ? result.find((s) => !sheet || s.sheet === sheet).data : result) yield row
  }
}

if (process.argv[2] === '--child') {
  const [, , , reader, path, sheet] = process.argv
  const started = performance.now()
  let rows = 0
  let first
  let fourth
  try {
    for await (const row of readWith(reader, path, sheet || undefined)) {
      rows++
      const kept = Array.from(row.slice(0, 4), (v) => (typeof v === 'string' ? v.slice(0, 20) : v))
      first ??= kept
      if (rows === 4) fourth = kept
    }
    const ms = performance.now() - started
    console.log(JSON.stringify({rows, first, fourth, ms, rssMiB: process.resourceUsage().maxRSS / 1024}))
  } catch (error) {
    console.log(JSON.stringify({error: String(error.message).slice(0, 80)}))
  }
  process.exit(0)
}

const child = (reader, path, sheet = '') => {
  const run = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', reader, path, sheet], {
    encoding: 'utf8',
    env: process.env,
  })
  return JSON.parse(run.stdout.trim().split('\n').at(-1) || '{"error":"no output"}')
}

// A 100,000-row sheet as Excel stores it (shared strings), written with exceljs's streaming writer.
const big = join(tempDir('gw-bench-readers-'), 'big.xlsx')
{
  const {default: ExcelJS} = await import('exceljs')
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({filename: big, useSharedStrings: true})
  const ws = workbook.addWorksheet('Refunds')
  ws.addRow(['mch_order_no', 'refund_amount', 'note']).commit()
  for (let i = 0; i < 99_999; i++) ws.addRow([`ORDER-${i}`, 10 + (i % 1000) / 100, 'คืนเงิน']).commit()
  ws.commit()
  await workbook.commit()
}

const lines = [
  '| reader | openpyxl: default sheet | openpyxl: red -2.50 | LibreOffice .xlsx: red -2.50 | .ods | 100,000 rows: time, peak RSS |',
  '| --- | --- | --- | --- | --- | --- |',
]
for (const reader of READERS) {
  const said = (r, pick) => (r.error ? `fails: ${r.error}` : pick(r))
  const openpyxl = child(reader, join(FIXTURES, 'finance.openpyxl.xlsx'))
  const negative = child(reader, join(FIXTURES, 'finance.openpyxl.xlsx'), 'Negatives')
  const libre = child(reader, join(FIXTURES, 'finance.libreoffice.xlsx'), 'Negatives')
  const ods = child(reader, join(FIXTURES, 'finance.ods'))
  const large = child(reader, big)
  lines.push(
    `| ${reader} | ${said(openpyxl, (r) => (String(r.first?.[0]).startsWith('Sales') ? 'Sheet (right)' : `${JSON.stringify(r.first).slice(0, 40)} (the hidden sheet)`))} | ${said(negative, (r) => String(r.fourth?.[1]))} | ${said(libre, (r) => String(r.fourth?.[1]))} | ${said(ods, (r) => `${r.rows} rows`)} | ${said(large, (r) => `${r.rows} rows, ${(r.ms / 1000).toFixed(2)} s, ${Math.round(r.rssMiB)} MiB`)} |`,
  )
  console.error(lines.at(-1))
}
console.log(lines.join('\n'))
