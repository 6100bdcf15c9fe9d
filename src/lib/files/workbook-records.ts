/**
 * A workbook's rows for the table reader, read in a worker thread (workbook-worker) whose heap
 * is bounded: a workbook that expands beyond reason (a ZIP bomb, a cell of gigabytes) is a
 * usage error, never gw out of memory. Rows come in batches, one requested at a time.
 */
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'

import {usageError} from '../errors.js'
import type {WorkerMessage} from './workbook-worker.js'
import {WORKER_HEAP_MB, type WorkbookRecords, readWorkbook, tooLarge} from './workbook-reader.js'
import type {WorkbookRecord} from './workbook-rows.js'

export async function workbookRecords(path: string, wanted: string | undefined): Promise<WorkbookRecords> {
  // Under the test runner the sources are TypeScript, which a worker cannot load: read in this thread.
  if (import.meta.url.endsWith('.ts')) return readWorkbook(path, wanted)
  // Built, the worker stands beside the chunk that starts it (scripts/build.mjs): one missing is a broken build, said.
  const entry = new URL('./workbook-worker.js', import.meta.url)
  if (!existsSync(fileURLToPath(entry)))
    throw new Error(`gw's workbook reader is missing (${fileURLToPath(entry)}): reinstall gw`)
  const worker = new Worker(entry, {
    workerData: {path, wanted},
    resourceLimits: {maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 32},
  })
  // Holds the process open only while a batch is awaited: a table opened and then given up
  // (a file refused after its header) does not keep gw running.
  const next = () =>
    new Promise<WorkerMessage>((resolve, reject) => {
      worker.ref()
      const onMessage = (message: WorkerMessage) => {
        worker.off('error', onError)
        worker.unref()
        resolve(message)
      }
      const onError = (error: Error & {code?: string}) => {
        worker.off('message', onMessage)
        worker.unref()
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? tooLarge(path)
            : usageError(`${path} cannot be read as a workbook (${error.message}).`),
        )
      }
      worker.once('message', onMessage)
      worker.once('error', onError)
    })
  const fail = async (message: WorkerMessage) => {
    await worker.terminate()
    if (message.type === 'failed') throw usageError(message.message, message.advice)
    throw usageError(`${path} cannot be read as a workbook.`)
  }
  const opened = await next().catch(async (error: unknown) => {
    await worker.terminate()
    throw error
  })
  if (opened.type !== 'opened') return fail(opened)
  async function* records(): AsyncGenerator<WorkbookRecord> {
    try {
      for (;;) {
        worker.postMessage('more')
        const message = await next()
        if (message.type === 'end') return
        if (message.type !== 'rows') return await fail(message)
        yield* message.rows
      }
    } finally {
      await worker.terminate()
    }
  }
  const {sheet, sheets, active} = opened
  return {sheet, sheets, ...(active ? {active} : {}), records: records()}
}
