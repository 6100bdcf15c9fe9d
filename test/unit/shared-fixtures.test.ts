import {readFileSync} from 'node:fs'
import {resolve} from 'node:path'

import {describe, expect, it} from 'vitest'

import {HAS_SHARED, SHARED_DIR, sharedText} from '../helpers/shared.js'

// The copies the tests read are ../shared's own: checked against it wherever it is beside the repository.
describe.skipIf(!HAS_SHARED)("the committed copies of ../shared's data", () => {
  it.each(['vectors/signing.json', 'vectors/published.json'])('%s is the reference, byte for byte', (file) => {
    expect(sharedText(file)).toBe(readFileSync(resolve(SHARED_DIR, file), 'utf8'))
  })

  it('seed/gateway-api.errors.md is section 7 of the API document as it stands', () => {
    const document = readFileSync(resolve(SHARED_DIR, 'seed', 'gateway-api.md'), 'utf8')
    expect(sharedText('seed/gateway-api.errors.md')).toBe(
      document.slice(document.indexOf('## 7. Errors'), document.indexOf('## 8.')),
    )
  })
})
