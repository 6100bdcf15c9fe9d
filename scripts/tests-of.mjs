#!/usr/bin/env node
// npm run tests-of -- refund create [vitest's options, e.g. -t 'a key rotated']: the tests of one
// command, found by its words as the tests write them ('refund', 'create'): every file of every
// tier that runs it, the command's own (test/commands/refund/create*.test.ts) first.
import {spawnSync} from 'node:child_process'
import {readFileSync, readdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const firstOption = args.findIndex((arg) => arg.startsWith('-'))
const words = firstOption === -1 ? args : args.slice(0, firstOption)
const options = args.slice(words.length)
const commands = readdirSync(join(root, 'src', 'commands'), {recursive: true})
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -3).split(/[\\/]/).join(' '))
  .sort()
if (!commands.includes(words.join(' '))) {
  console.error(`Name a command of gw: ${commands.join(', ')}.`)
  console.error("For example: npm run tests-of -- refund create -t 'resumed'")
  process.exit(2)
}

const runs = new RegExp(words.map((word) => `'${word}'`).join(',\\s*'))
const own = `test/commands/${words.join('/')}`
const files = ['unit', 'commands', 'e2e']
  .flatMap((tier) =>
    readdirSync(join(root, 'test', tier), {recursive: true}).map(
      (file) => `test/${tier}/${file.replaceAll('\\', '/')}`,
    ),
  )
  .filter(
    (file) => file.endsWith('.test.ts') && (file.startsWith(own) || runs.test(readFileSync(join(root, file), 'utf8'))),
  )
  .sort((a, b) => Number(b.startsWith(own)) - Number(a.startsWith(own)) || a.localeCompare(b))
if (!files.length) {
  // vitest given no file runs every file: say so instead.
  console.error(`No test file runs gw ${words.join(' ')} by its words (${words.map((w) => `'${w}'`).join(', ')}).`)
  process.exit(1)
}
console.log(`gw ${words.join(' ')}: ${files.length} test files\n${files.map((file) => `  ${file}`).join('\n')}`)
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const ran = spawnSync(process.execPath, [vitest, 'run', ...files, ...options], {stdio: 'inherit', cwd: root})
process.exit(ran.status ?? 1)
