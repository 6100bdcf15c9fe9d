/**
 * gw refund create's single refund: asked before it is sent (and before an identical one is
 * made again), stopped by Ctrl-C before it leaves, settled as refunds/single.ts says.
 */
import type {Profile} from '../../lib/profiles/store.js'
import type {RefundService} from '../../lib/refunds/service.js'
import type {OneRefundHooks, SingleRefunds} from '../../lib/refunds/single.js'
import {elsewhereQuestion, endedAfterSettling, identicalQuestion, refundAction} from '../../lib/render/refunds.js'
import type {Asking} from '../../lib/cli/command-ports.js'
import {onInterrupt} from '../../lib/cli/interrupt.js'

export async function refundOne(
  request: Parameters<SingleRefunds['refund']>[0],
  refunds: RefundService,
  profile: Profile,
  asking: Asking,
) {
  const {SingleRefunds} = await import('../../lib/refunds/single.js')
  const interrupt = onInterrupt()
  const {signal} = interrupt
  const hooks: OneRefundHooks = {
    identical: (made, planned) => {
      const [action, options] = identicalQuestion(made, planned, profile)
      return asking.confirm(action, {...options, signal})
    },
    elsewhere: (elsewhere, planned) => {
      const [action, options] = elsewhereQuestion(elsewhere, planned)
      return asking.confirm(action, {...options, signal})
    },
    sending: (planned) => asking.confirm(refundAction(planned), {signal}),
  }
  return new SingleRefunds(refunds)
    .refund(request, hooks, signal)
    .catch((error: unknown) => {
      throw endedAfterSettling(error)
    })
    .finally(() => interrupt.dispose())
}
