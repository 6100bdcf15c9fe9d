/**
 * Where gw keeps things. GW_CONFIG_DIR moves all of it (profiles, keys, order history and
 * the sandbox's default data dir); otherwise the platform's config and data folders.
 */
import {homedir} from 'node:os'
import {join} from 'node:path'

export function configDir(): string {
  if (process.env.GW_CONFIG_DIR) return process.env.GW_CONFIG_DIR
  const home = homedir()
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'gw')
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'gw', 'Config')
  return join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'gw')
}

export function defaultSandboxDir(): string {
  if (process.env.GW_CONFIG_DIR) return join(process.env.GW_CONFIG_DIR, 'sandbox')
  const home = homedir()
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'gw', 'sandbox')
  if (process.platform === 'win32')
    return join(process.env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'gw', 'Data', 'sandbox')
  return join(process.env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'gw', 'sandbox')
}
