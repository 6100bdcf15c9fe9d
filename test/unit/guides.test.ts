/** The guides of docs/: each one `gw help` names, linked from the README, shown offline without the tests' marks. */
import {mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {GUIDES, guideText} from '../../src/lib/cli/guides.js'
import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'

const scratch = tempDir('gw-guides-')
afterAll(() => removeDir(scratch))

describe('the guides', () => {
  it('are every page of docs/ but the generated reference, each linked from the README', () => {
    // Pictures beside them (the desk's screenshot) are not guides.
    const pages = readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'commands.md')
    expect(pages.sort()).toEqual(
      Object.keys(GUIDES)
        .map((guide) => `${guide}.md`)
        .sort(),
    )
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
    for (const guide of Object.keys(GUIDES)) expect(readme).toContain(`](docs/${guide}.md)`)
  })

  it('are shown offline without the marks the tests read, each link said as where to read it', () => {
    mkdirSync(join(scratch, 'docs'))
    writeFileSync(
      join(scratch, 'docs', 'support.md'),
      [
        '# Support',
        '',
        '<!-- quick start -->',
        '',
        '```sh',
        'gw order query INV-1001',
        '```',
        '',
        'See [What gw keeps](security.md#what-gw-keeps), [the table](#exit-codes), [the reference](commands.md)',
        'and [Node](https://nodejs.org/api/).',
        '',
      ].join('\n'),
    )
    expect(guideText(scratch, 'support')).toBe(
      [
        '# Support',
        '',
        '```sh',
        'gw order query INV-1001',
        '```',
        '',
        'See What gw keeps (gw help security), the table, the reference (gw help --all)',
        'and Node (https://nodejs.org/api/).',
        '',
      ].join('\n'),
    )
  })
})
