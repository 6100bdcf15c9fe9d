// Preloaded into gw by the benchmarks: reports the process's peak resident memory (KiB) on fd 3.
import {writeSync} from 'node:fs'
import {isMainThread} from 'node:worker_threads'

// A worker thread (the workbook reader) is preloaded too: only the process's own exit reports, once.
if (isMainThread)
  process.on('exit', () => {
    try {
      writeSync(3, String(process.resourceUsage().maxRSS))
    } catch {
      // fd 3 is only open when a benchmark asked for it
    }
  })
