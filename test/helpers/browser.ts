/**
 * Debian's Chromium, driven by playwright-core, for the pages gw writes or serves: launched with
 * the flags this machine's closed network needs (no background networking, no first-run
 * connections). CI installs it (.ci/run); elsewhere the tests that need it say they were skipped.
 */
import {existsSync} from 'node:fs'

import type {Browser} from 'playwright-core'

const CHROMIUM = '/usr/bin/chromium'
export const HAS_CHROMIUM = existsSync(CHROMIUM) || Boolean(process.env.CI)

/** A headless Chromium; the caller closes it. */
export async function launchChromium(): Promise<Browser> {
  const {chromium} = await import('playwright-core')
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
