/**
 * What a command that talks to the gateway needs, built once per command and only by the
 * commands that use it: the signed client, the local history of its gateway, the order and
 * refund services. Commands get them from a factory they are given (the default one here), so
 * that a test can run a command in-process with the services it chooses.
 */
import {type ClientOptions, Connections, GatewayClient} from '../gateway/client.js'
import type {ZoneDisagreement} from '../gateway/protocol/index.js'
import type {CommandIO} from '../io/streams.js'
import {OrderService} from '../orders/service.js'
import {configDir} from '../paths.js'
import {type Profile, ProfileStore} from '../profiles/store.js'
import {wrongZone} from '../profiles/zone.js'
import {gatewayPort, recordsPort} from '../refunds/ports.js'
import {RefundService} from '../refunds/service.js'
import {gatewayOf} from '../store/gateway.js'
import type {GatewayHistory} from '../store/history.js'
import {LocalStore} from '../store/store.js'

export interface GatewayServices {
  client: GatewayClient
  /** The history of the profile's gateway. */
  history: GatewayHistory
  orders: OrderService
  refunds: RefundService
  /** Ends the command's use of them: the history settled (what it could not keep is said), the connections closed. */
  close(): Promise<void>
}

/** Where a command's notes go: warnings (what could not be read or written), and progress notes. */
export interface Notes {
  warn(message: string): void
  note(message: string): void
}

/** Closes a command's store, saying what it could not keep. */
export function closeStore(store: LocalStore, notes: Notes): void {
  const said = store.close()
  if (said) notes.warn(said)
}

/** Where commands get what they work with. */
export interface ServiceFactory {
  /** The local store of the command's environment (its config dir). */
  store(io: CommandIO, notes: Notes): LocalStore
  /** The client and services for a profile. */
  connect(profile: Profile, options: ClientOptions, io: CommandIO, notes: Notes): GatewayServices
}

/** A big earlier history's import is said as it goes, every few seconds. */
const IMPORT_SAID_FROM_BYTES = 16 << 20
const IMPORT_SAID_EVERY_MS = 2000

export const defaultServices: ServiceFactory = {
  store(io, {warn, note}) {
    let saidAt = Date.now()
    const importing = (read: number, size: number) => {
      if (size < IMPORT_SAID_FROM_BYTES || (Date.now() - saidAt < IMPORT_SAID_EVERY_MS && read < size)) return
      saidAt = Date.now()
      note(`importing the earlier history (${store.jsonl}) into ${store.file}: ${Math.floor((read / size) * 100)}%`)
    }
    const store = new LocalStore(configDir(io.env), {warn, note, importing})
    return store
  },
  connect(profile, options, io, notes) {
    const connections = new Connections()
    // A gateway writing at another offset than the profile's zone: every time shown is off; said once a command.
    const zoneDisagrees = (disagreement: ZoneDisagreement) => {
      const {detail, advice} = wrongZone(profile, disagreement)
      notes.warn(`${detail}. ${advice}`)
    }
    const client = new GatewayClient(profile, {zoneDisagrees, ...options}, connections)
    const store = this.store(io, notes)
    // The other gateways of the appid this machine's profiles name: records of earlier versions are a gateway's only when it is the one.
    const known = new ProfileStore(configDir(io.env)).gatewaysOf(profile.appid).map(gatewayOf)
    const history = store.for(gatewayOf(profile), known)
    const orders = new OrderService(client, history)
    return {
      client,
      history,
      orders,
      refunds: new RefundService(gatewayPort(client, orders), recordsPort(history)),
      close: async () => {
        closeStore(store, notes)
        connections.close()
      },
    }
  },
}
