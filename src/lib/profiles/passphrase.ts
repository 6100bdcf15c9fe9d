/**
 * The passphrase of an encrypted private key, for this run only: from --passphrase-file, else
 * GW_KEY_PASSPHRASE, else asked on a terminal with hidden input. The store keeps the key as it
 * was given, encrypted; the passphrase is never stored, printed, logged or put in --json.
 */
import {readFileSync} from 'node:fs'

import {type CommandIO, canAsk, processIO} from '../io/streams.js'
import {usageError} from '../errors.js'
import {isEncryptedPem} from '../gateway/signing.js'

/** Asks for a passphrase on the command's terminal, with hidden input (the command's prompts). */
type AskHidden = (message: string) => Promise<string>

/** The command running (one at a time in a process): its streams and environment, and the passphrase it was given. */
let run: {io: CommandIO; ask?: AskHidden; given?: string} = {io: processIO()}

/** A command starts: the passphrase is its own (GW_KEY_PASSPHRASE of its environment, --passphrase-file), never an earlier one's. */
export function startRun(io: CommandIO, passphraseFile?: string, ask?: AskHidden): void {
  run = {io, ask}
  if (passphraseFile) passphraseFromFile(passphraseFile)
}

/** The passphrase this run has, if any. */
export const keyPassphrase = (): string | undefined => run.given ?? run.io.env.GW_KEY_PASSPHRASE

/** --passphrase-file: a file holding the passphrase (one line; its line ending is not part of it). */
function passphraseFromFile(path: string): void {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw usageError(`--passphrase-file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}.`)
  }
  const passphrase = text.replace(/\r?\n$/, '')
  if (!passphrase) throw usageError(`--passphrase-file ${path} is empty.`, 'Put the passphrase on its first line.')
  run.given = passphrase
}

/**
 * Before an encrypted key is used: its passphrase is at hand, asked on a terminal when not
 * given; without a terminal, exit 2 saying how to give it. `what` names the key ("the private
 * key of profile "shop""), `file` where it is, for the openssl command that decrypts a copy.
 */
export async function unlockKey(pem: string, what: string, file?: string): Promise<void> {
  if (!isEncryptedPem(pem) || keyPassphrase() !== undefined) return
  if (run.ask && canAsk(run.io)) {
    run.given = await run.ask(`Passphrase of ${what}`)
    return
  }
  throw usageError(
    `${what[0]!.toUpperCase()}${what.slice(1)} is encrypted (a passphrase protects it), and there is no terminal to ask for the passphrase on.`,
    `Give the passphrase with GW_KEY_PASSPHRASE, or --passphrase-file FILE (a file holding it, readable by you only), or run the command on a terminal to be asked. Or decrypt a copy once and use that: openssl pkey -in ${file ?? 'KEY.pem'} -out decrypted.pem (keep it private: chmod 600 decrypted.pem).`,
  )
}
