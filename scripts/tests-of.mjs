#!/usr/bin/env node
// npm run tests-of -- refund create [vitest's options, e.g. -t 'a key rotated']: the tests of one
// command. Its own are found by its path: test/commands/refund/create.test.ts, and the files of one
// aspect beside it (create.bulk.test.ts, ...); then every other file of every tier that runs it by
// its words as the tests write them ('refund', 'create'): the journeys and the end-to-end cases.
// The command may be named by its file, or its run's: npm run tests-of -- src/commands/refund/create.ts
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, readdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const firstOption = args.findIndex((arg) => arg.startsWith('-'))
const given = firstOption === -1 ? args : args.slice(0, firstOption)
const options = args.slice(given.length)
const commandFile = /^(?:\.\/)?src\/commands\/(.+?)(?:\.[a-z-]+)*\.ts$/.exec(given.join(' '))
const words = commandFile ? commandFile[1].split('/') : given
const commands = readdirSync(join(root, 'src', 'commands'), {recursive: true})
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.run.ts'))
  .map((file) => file.slice(0, -3).split(/[\\/]/).join(' '))
  .sort()
if (!commands.includes(words.join(' '))) {
  console.error(`Name a command of gw, by its words or its file: ${commands.join(', ')}.`)
  console.error("For example: npm run tests-of -- refund create -t 'resumed'")
  process.exit(2)
}

const testFiles = (tier) =>
  existsSync(join(root, 'test', tier))
    ? readdirSync(join(root, 'test', tier), {recursive: true})
        .map((file) => `test/${tier}/${file.replaceAll('\\', '/')}`)
        .filter((file) => file.endsWith('.test.ts'))
    : []
const all = ['unit', 'commands', 'journeys', 'e2e'].flatMap(testFiles)
const own = `test/commands/${words.join('/')}`
const isOwn = (file) =>
  file === `${own}.test.ts` || (file.startsWith(`${own}.`) && !file.slice(own.length + 1, -8).includes('/'))
const runs = new RegExp(words.map((word) => `'${word}'`).join(',\\s*'))
const mine = all
  .filter(isOwn)
  .sort((a, b) => (a === `${own}.test.ts` ? -1 : b === `${own}.test.ts` ? 1 : a.localeCompare(b)))
const others = all.filter((file) => !isOwn(file) && runs.test(readFileSync(join(root, file), 'utf8'))).sort()
if (!mine.length) {
  // vitest given no file runs every file: say so instead.
  console.error(`gw ${words.join(' ')} has no test file of its own (${own}.test.ts): every command has one.`)
  process.exit(1)
}
console.log(`gw ${words.join(' ')}: its own tests\n${mine.map((file) => `  ${file}`).join('\n')}`)
if (others.length) console.log(`and the files that run it too\n${others.map((file) => `  ${file}`).join('\n')}`)
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const ran = spawnSync(process.execPath, [vitest, 'run', ...mine, ...others, ...options], {stdio: 'inherit', cwd: root})
process.exit(ran.status ?? 1)
