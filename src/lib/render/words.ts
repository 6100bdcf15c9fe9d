/** Words of the lists: a state as listed after --refresh, and the count under a list. */
import {plural} from '../plural.js'
import type {OutputForm} from '../io/streams.js'

/** A listed order's or refund's state after --refresh: marked when it is the one gw knew before. */
export function listedState(
  state: string,
  item: {refresh_failed?: string; refresh_skipped?: string; unattributed?: true},
): string {
  const said = item.unattributed ? `${state} (gateway not recorded*)` : state
  if (item.refresh_failed !== undefined) return `${said} (not refreshed)`
  if (item.refresh_skipped !== undefined) return `${said} (as known: ${item.refresh_skipped})`
  return said
}

/** How many a list's query found (`total`), whether --out's file holds them all, and --limit when given (the first so many are the `newest`, or the `first` by name). */
export interface ListCounted {
  total: number
  inFile: boolean
  limit?: number
  firstAre?: 'newest' | 'first'
}

/** A list's view: its text for stdout, its notes for stderr. */
export interface ListView {
  text: string
  notes: string[]
}

/** A list of none: said on stdout at a terminal; piped, stdout stays empty (a script counts no lines) and it is a note. */
export const noneListed = (said: string, form: OutputForm): ListView =>
  form.terminal ? {text: said, notes: []} : {text: '', notes: [said]}

/**
 * The count under a list: "3 orders", or "the first 200 of 500000 orders shown (all in the
 * file)", or without a file where all of them are. Piped, a list of all of them needs no count
 * (it is the number of lines).
 */
export function listCount(shown: number, word: string, counted: ListCounted, form: OutputForm): string | undefined {
  const {total, inFile, limit, firstAre = 'newest'} = counted
  if (shown === total) return form.terminal ? plural(total, word) : undefined
  if (limit !== undefined && shown === limit)
    return `the ${firstAre} ${shown} of ${plural(total, word)} (--limit ${limit})`
  return `the first ${shown} of ${plural(total, word)} shown (${inFile ? 'all in the file' : 'all of them with --out FILE.csv or FILE.xlsx, or --json'})`
}

/** The footnote of a list that shows records an earlier gw made without recording their gateway. */
export const unattributedNote = (items: readonly {unattributed?: true}[]): string | undefined =>
  items.some((item) => item.unattributed)
    ? "* made by an earlier gw, which did not record the gateway, and this machine has more than one profile of this appid: maybe another gateway's (a test profile's); shown, never used to settle, skip or refuse a refund (gw history)."
    : undefined
