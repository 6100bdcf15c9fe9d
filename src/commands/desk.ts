import {Flags} from '@oclif/core'

import {GwCommand} from '../lib/cli/base-command.js'
import {networkFlags, zoneOf} from '../lib/cli/flags.js'
import type {Ended} from '../lib/errors.js'
import {localZone} from '../lib/gateway/protocol/index.js'

export default class Desk extends GwCommand<typeof Desk> {
  static override summary =
    'the support desk as a page of this machine: any number finds the order, its story, a refund'
  static override description = `Serves the support desk on this machine's loopback address for this run, and prints the address to open (with this run's secret) as the first line on stdout; on a terminal it opens the browser there too. One box finds an order by any number support has (the merchant's, the gateway's, the channel's from a wallet receipt, or a refund's); its page tells the order's story as gw order timeline does, with paid, refunded and left, and refunds part of it through the same rules as gw refund create, after a confirmation that shows exactly what will be sent (a live profile asks for the order number to be typed). Lists show the orders and refunds of this machine with the list commands' filters. Times are on the gateway's clock unless --zone says otherwise. Ctrl-C stops it and says what was done through it. Only this machine's browser, holding the printed address, can use it: gw help security says what it refuses.`

  static override examples = [
    '<%= config.bin %> desk',
    '<%= config.bin %> desk --port 8790 --no-open',
    '<%= config.bin %> desk --zone local --json',
  ]

  static override usage = '<%= command.id %> [--port N] [--no-open] [--zone Z] [FLAGS]'

  static override flags = {
    port: Flags.integer({
      description: 'port on the loopback address (default: a free one)',
      default: 0,
      min: 0,
      max: 65_535,
    }),
    open: Flags.boolean({
      description: 'open the desk in the browser when stdout is a terminal (--no-open: only print its address)',
      allowNo: true,
      default: true,
    }),
    zone: Flags.string({
      description:
        "whose clock the times are on: gateway (the profile's gateway zone: the customer's, the default), local (this machine's) or an IANA name",
    }),
    timeout: networkFlags.timeout,
  }

  async run(): Promise<Ended> {
    const {flags, profile} = this
    const zone = flags.zone ? (zoneOf(flags.zone, profile.gatewayZone) ?? localZone()) : profile.gatewayZone
    const [{serveDesk}, {orders, refunds, history}] = await Promise.all([import('./desk.run.js'), this.services()])
    return serveDesk({orders, refunds, history}, profile, {zone, port: flags.port, open: flags.open}, this.showing)
  }
}
