/**
 * Where gw keeps things. GW_CONFIG_DIR moves all of it (profiles, keys, order history and
 * the sandbox's default data dir); otherwise the platform's config and data folders.
 */
import {homedir} from 'node:os'
import {join} from 'node:path'

type Env = Readonly<Record<string, string | undefined>>

/** Where else a user can keep gw's config and history, for the advice of a config dir refused. */
export const OWN_CONFIG_DIR = 'set GW_CONFIG_DIR to a folder of your own'

export function configDir(env: Env = process.env): string {
  if (env.GW_CONFIG_DIR) return env.GW_CONFIG_DIR
  const home = homedir()
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'gw')
  if (process.platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'gw', 'Config')
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'gw')
}

export function defaultSandboxDir(env: Env = process.env): string {
  if (env.GW_CONFIG_DIR) return join(env.GW_CONFIG_DIR, 'sandbox')
  const home = homedir()
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'gw', 'sandbox')
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'gw', 'Data', 'sandbox')
  return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'gw', 'sandbox')
}

/**
 * A file's path as typed at a question (no shell reads it): `~` and `~/…` are the home folder, as
 * a shell would have made them, and the quotes a terminal puts around a file dropped on it go.
 */
export function typedPath(text: string): string {
  const trimmed = text.trim()
  const unquoted = /^(['"])(.*)\1$/s.exec(trimmed)?.[2] ?? trimmed
  if (unquoted === '~') return homedir()
  return /^~[\\/]/.test(unquoted) ? join(homedir(), unquoted.slice(2)) : unquoted
}
