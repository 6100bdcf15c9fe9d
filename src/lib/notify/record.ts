/**
 * A delivery the listener judged, in this machine's history: a line of the order's story (gw
 * order timeline), and for a verified payment the order's state, so lists follow payments the
 * listener saw. A rejected delivery is recorded only for an order made here: its fields are
 * unverified, and anyone who reaches the listener could otherwise write stories of any order.
 */
import {gatewayTimeIso} from '../gateway/protocol/index.js'
import type {GatewayHistory} from '../store/history.js'
import type {NotificationEvent} from './listener.js'

export function recordDelivery(
  history: GatewayHistory,
  profile: {appid: string; gatewayZone: string},
  event: NotificationEvent,
  listener: string,
): void {
  const mchOrderNo = event.mch_order_no
  if (!mchOrderNo) return
  const verified = event.verdict === 'verified'
  if (!verified && !history.findOrder({mch_order_no: mchOrderNo})) return
  const time_end = gatewayTimeIso(event.time_end, profile.gatewayZone)
  const {verdict, reason, retry, forwarded} = event
  const detail = {
    verdict,
    reason,
    retry,
    listener,
    time_end,
    forwarded: forwarded && {url: forwarded.url, status: forwarded.status},
  }
  history.noteEvent(mchOrderNo, 'notified', detail)
  if (verified) history.noteOrderState(mchOrderNo, 'SUCCESS', {by: 'notification', openid: event.openid, time_end})
}
