/** The lines of an order's story (gw order timeline), by what each tells. */
/** A line of the story; each kind carries its own facts. */
export type TimelineEntry = {at: string} & (
  | {kind: 'made'; profile?: string; command?: string; live?: boolean}
  /** Drawn (where), or why not; saved to a file; the code_url it encodes (the gateway's). */
  | {kind: 'qr'; drawn?: string; not_drawn?: string; file?: string; code_url?: string}
  /** Queries in a row that showed the same state are one line: how many, and when the last was (`last_at`). */
  | {kind: 'queried'; state: string; count?: number; last_at?: string}
  /** The gateway's time_end, once however many queries and notifications showed it. */
  | {kind: 'paid'; openid?: string; shown_by: ('query' | 'notification')[]}
  | {kind: 'notified'; verdict: string; reason?: string; retry?: number; listener?: string}
  | {
      kind: 'refund'
      mch_refund_no: string
      /** Not known for a refund the gateway shows without its amount. */
      refund_fee?: number
      refund_amount?: string
      fee_type?: string
      /** As this machine recorded it (refunded, failed, unknown...), or the gateway's state for one made elsewhere. */
      status: string
      gw_refund_no?: string
      /** Who made it: `refund create`, a bulk file's name, or elsewhere (the gateway shows it; this machine did not make it). */
      made_by: string
      /** The gateway's state of it now (with refresh); `absent`: the gateway has no refund of that number. */
      gateway_state?: string
      /** Recorded by an earlier gw that did not record the gateway: maybe another gateway's (a test profile's). */
      unattributed?: true
    }
  | {kind: 'closed'; already_closed?: boolean}
)
