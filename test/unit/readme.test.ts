/** The README as a newcomer meets it: short, its first two commands set up and test a fresh clone, as CI does. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {REPO_ROOT} from '../helpers/shared.js'

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')

describe('the README', () => {
  it('is under 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(250)
  })

  it('opens with two commands: the set-up and the demo, then the tests, which are what CI runs', () => {
    const first = /```sh\n([\s\S]*?)```/.exec(readme)![1]!
    const commands = first
      .trim()
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, ''))
    expect(commands).toEqual(['npm ci && npm run demo', 'npm test'])
    // .ci/run runs the README's test command itself (timed), after its own npm ci.
    const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8').split('\n')
    expect(ci).toContain(`time ${commands[1]}`)
    const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {scripts: object}).scripts
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['demo', 'test']))
  })
})
