/**
 * The worker thread a workbook is read in (workbook-reader): rows go to the main thread in
 * batches, one batch per request, so a slow consumer holds at most one batch. The thread's
 * heap is bounded by the main thread: a workbook that expands beyond reason (a ZIP bomb)
 * ends this thread, not gw.
 */
import {parentPort, workerData} from 'node:worker_threads'

import {GwError} from '../errors.js'
import {readWorkbook} from './workbook-reader.js'
import type {WorkbookRecord} from './workbook-rows.js'

/** Rows per message. */
const BATCH = 500

/** What the worker says: the sheet opened, a batch of rows, the end, or why it failed. */
export type WorkerMessage =
  | {type: 'opened'; sheet: string; sheets: string[]; active?: string}
  | {type: 'rows'; rows: WorkbookRecord[]}
  | {type: 'end'}
  | {type: 'failed'; message: string; advice?: string}

const port = parentPort!
const post = (message: WorkerMessage) => port.postMessage(message)
/** Resolves at each request for more rows. */
const requests = async function* () {
  for (;;) yield await new Promise<void>((resolve) => port.once('message', () => resolve()))
}

const {path, wanted} = workerData as {path: string; wanted?: string}
try {
  const {sheet, sheets, active, records} = await readWorkbook(path, wanted)
  post({type: 'opened', sheet, sheets, ...(active ? {active} : {})})
  for await (const _ of requests()) {
    const rows: WorkbookRecord[] = []
    while (rows.length < BATCH) {
      const next = await records.next()
      if (next.done) break
      rows.push(next.value)
    }
    post(rows.length ? {type: 'rows', rows} : {type: 'end'})
    if (!rows.length) break
  }
} catch (error) {
  const usage = error instanceof GwError
  post({
    type: 'failed',
    message: usage ? error.message : String((error as Error).message),
    advice: usage ? error.advice : undefined,
  })
}
port.close()
