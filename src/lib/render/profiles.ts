/** Profiles for people: never key material, only fingerprints. */
import type {ProfileView} from '../profiles/view.js'

export function profileSavedLine(view: ProfileView): string {
  return `Profile "${view.name}" saved${view.default ? ' (default)' : ''}: ${view.appid} at ${view.base_url}${view.live ? ', LIVE' : ''}.`
}
