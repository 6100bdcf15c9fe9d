/**
 * gw refund create's single refund: asked before it is sent (and before an identical one is
 * made again), stopped by Ctrl-C before it leaves, settled as refunds/single.ts says; then said,
 * its end as the refund model gives it (a refusal or a failure is the command's error).
 */
import {type Ended, OUTCOME} from '../../lib/errors.js'
import type {AmountNames} from '../../lib/gateway/protocol/index.js'
import {describeReference} from '../../lib/orders/reference.js'
import type {Profile} from '../../lib/profiles/store.js'
import {type RefundRequest, outcomeOfRefund} from '../../lib/refunds/refund.js'
import type {RefundService} from '../../lib/refunds/service.js'
import type {OneRefundHooks} from '../../lib/refunds/single.js'
import {
  type RefundDocument,
  elsewhereQuestion,
  endedAfterSettling,
  identicalQuestion,
  refundAction,
  refundOutcome,
} from '../../lib/render/refunds.js'
import type {Asking, Showing} from '../../lib/cli/command-ports.js'
import {onInterrupt} from '../../lib/cli/interrupt.js'

/** The refund asked for, made and said: its --json document, and how the run ended. `names`: the amount's flags. */
export async function refundAndSay(
  request: RefundRequest,
  names: AmountNames,
  refunds: RefundService,
  command: Asking & Showing & {profile: Profile},
): Promise<RefundDocument & Ended> {
  const result = await refundOne(request, refunds, command.profile, command)
  const said = refundOutcome(result, describeReference(request.ref), names, command.profile)
  if ('error' in said) throw said.error
  if (said.text) command.log(said.text)
  for (const note of said.notes) if (note) command.note(note)
  return {...said.refund, [OUTCOME]: outcomeOfRefund(result)}
}

async function refundOne(request: RefundRequest, refunds: RefundService, profile: Profile, asking: Asking) {
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
