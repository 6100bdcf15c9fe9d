/**
 * `gw desk`'s run: the page server on loopback (127.0.0.1, or ::1 on a machine without IPv4
 * loopback), its routes, and what the run did, for the summary when it stops. Nothing outlives the
 * run: its sessions, drafts and secret are this process's.
 */
import {formatAmount} from '../gateway/protocol/index.js'
import {type DeskProfile, DeskRoutes, type DeskServices} from './routes.js'
import type {DeskOutcome} from './refunding.js'
import {type Refusal, startDeskServer} from './server.js'

interface DeskOptions {
  services: DeskServices
  profile: DeskProfile
  /** The IANA zone the pages show times in. */
  zone: string
  port: number
  /** Aborts when the desk is stopping: a refund in flight ends as Ctrl-C ends `gw refund create`. */
  stop: AbortSignal
  /** Told of what failed inside the desk (a request it could not answer). */
  warn(message: string): void
}

/** A refund asked for on the desk, as the summary says it. */
export interface DeskRefund {
  mch_order_no: string
  amount: string
  reason: string
  outcome: DeskOutcome['kind']
  mch_refund_no?: string
  gw_refund_no?: string
}

/** What a desk's run did: what `gw desk` says when it stops. */
export interface DeskSummary {
  /** The orders whose page was shown. */
  orders: number
  refunds: DeskRefund[]
  refused: Readonly<Record<Refusal, number>>
}

export interface RunningDesk {
  /** The address to open, with this run's secret. */
  url: string
  /** An address that opens the desk once, for the browser gw opens itself. */
  openUrl(): string
  summary(): DeskSummary
  /** Stops answering; what is under way has been settled by the stop signal. */
  close(): Promise<void>
}

/** Starts the desk: listening once this resolves. Port in use and the like are the listen's errors, as they came. */
export async function startDesk(options: DeskOptions): Promise<RunningDesk> {
  const routes = new DeskRoutes(options.services, options.profile, options.zone, options.stop)
  const onError = (error: unknown) =>
    options.warn(`the desk could not answer a request: ${(error as Error)?.message ?? String(error)}`)
  const listen = (host: string) => startDeskServer({host, port: options.port}, (asked) => routes.route(asked), onError)
  const server = await listen('127.0.0.1').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRNOTAVAIL') throw error
    return listen('::1')
  })
  return {
    url: server.url,
    openUrl: () => server.openUrl(),
    summary: () => ({
      orders: routes.looked.size,
      refunds: routes.drafts.done().map((draft) => ({
        mch_order_no: draft.order.mch_order_no,
        amount: formatAmount(draft.refund_fee, draft.order.fee_type),
        reason: draft.reason,
        outcome: draft.outcome!.kind,
        mch_refund_no: draft.outcome!.mch_refund_no,
        gw_refund_no: draft.outcome!.gw_refund_no,
      })),
      refused: {...server.refused},
    }),
    close: async () => {
      await routes.drafts.settled()
      await server.close()
    },
  }
}
