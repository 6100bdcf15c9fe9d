/**
 * The audit trail every report carries (a sheet of a workbook, `<report>.summary.csv` beside a
 * CSV, and --json): which file (by name and SHA-256: which version of it), which merchant
 * account in which mode, with which gw, by whom and when; then the run's totals per status (or
 * classification) and currency. What a controller asks before accepting a report.
 */
import {userInfo} from 'node:os'
import {basename} from 'node:path'

import {isoTime} from '../gateway/protocol/index.js'
import type {Cell, Money, SummarySheet} from './cells.js'
import type {TallyLine} from './tally.js'

export interface AuditTrail {
  input_file: string
  input_sha256: string
  profile: string
  appid: string
  mode: 'test' | 'live'
  gw_version: string
  /** A bulk run's --batch-id (it enters the refund numbers gw derives): a re-check names it again. */
  batch_id?: string
  os_user: string
  /** ISO 8601 with the machine's offset. */
  started: string
  finished: string
}

/** Who runs it, for the trail; a machine whose user has no name (a container's uid) says the uid. */
function osUser(): string {
  try {
    return userInfo().username
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`
  }
}

/** The trail's fixed part, known when a run starts; `finished` is set when its report is written. */
export function startTrail(
  input: string,
  sha256: string,
  profile: {name: string; appid: string; live: boolean},
  gwVersion: string,
  batchId?: string,
): AuditTrail {
  const started = isoTime()
  return {
    input_file: basename(input),
    input_sha256: sha256,
    profile: profile.name,
    appid: profile.appid,
    mode: profile.live ? 'live' : 'test',
    gw_version: gwVersion,
    ...(batchId ? {batch_id: batchId} : {}),
    os_user: osUser(),
    started,
    finished: started,
  }
}

/**
 * The summary of a report: the trail, then rows and amounts per group and currency (an amount
 * known only in a currency gw knows); `amounts` names each summed amount's column.
 */
export function summarySheet<G extends string, F extends `${string}_fee`>(
  trail: AuditTrail,
  groupName: string,
  lines: readonly TallyLine<G, F>[],
  amounts: Record<F, string>,
  money: (minor: number | undefined, currency: string) => Money | undefined,
  notes: Cell[][] = [],
): SummarySheet {
  const fields = Object.keys(amounts) as F[]
  return {
    trail: Object.entries(trail),
    header: [groupName, 'currency', 'rows', ...fields.map((field) => amounts[field])],
    rows: [
      ...lines.map((l) => [
        l.group,
        l.currency,
        l.rows,
        // No amount (rows skipped before theirs was known): an empty cell, never a sum of 0.
        ...fields.map((field) => money(l[field] as number | undefined, l.currency)),
      ]),
      ...notes,
    ],
  }
}
