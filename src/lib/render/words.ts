/** Words of the lists: a state as listed after --refresh, and the count under a list. */
import {plural} from '../plural.js'

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

/**
 * The count under a list: "3 orders", or "the first 200 of 500000 orders shown (all in the
 * file)", or without a file where all of them are.
 */
export const listCount = (shown: number, total: number, word: string, inFile = false, limit?: number) =>
  shown === total
    ? plural(total, word)
    : limit !== undefined && shown === limit
      ? `the newest ${shown} of ${plural(total, word)} (--limit ${limit})`
      : `the first ${shown} of ${plural(total, word)} shown (${inFile ? 'all in the file' : 'all of them with --out FILE.csv or FILE.xlsx, or --json'})`

/** The footnote of a list that shows records an earlier gw made without recording their gateway. */
export const unattributedNote = (items: readonly {unattributed?: true}[]): string =>
  items.some((item) => item.unattributed)
    ? "\n* made by an earlier gw, which did not record the gateway, and this machine has more than one profile of this appid: maybe another gateway's (a test profile's); shown, never used to settle, skip or refuse a refund (gw history)."
    : ''
