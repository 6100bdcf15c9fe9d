/**
 * vitest's global setup (vitest.config.ts): the build the spawned tests run, copied once a run from
 * this checkout into a folder of its own, as the package holds it (package.json and its files). A
 * rebuild while the tests run (the developer's, another tool's) never changes or removes the gw
 * under test. A dist/ older than src/ is not copied: the first test that starts gw as a process
 * says to build (the unit tier and the command tier's in-process cases need no build).
 */
import {cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'

import type {TestProject} from 'vitest/node'

import {REPO_ROOT} from './shared.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The copy of the build the tests run (`dir`), or why there is none (`refused`). */
    gwBuild: {dir?: string; refused?: string}
  }
}

function newest(dir: string): {path: string; ms: number} {
  let found = {path: dir, ms: 0}
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    const file = entry.isDirectory() ? newest(path) : {path, ms: statSync(path).mtimeMs}
    if (file.ms > found.ms) found = file
  }
  return found
}

/** The checkout's build copied, or why it is not: yesterday's gw would be tested without a word. */
function copyBuild(): {dir?: string; refused?: string} {
  const dist = statSync(join(REPO_ROOT, 'dist', 'commands'), {throwIfNoEntry: false})
  const source = newest(join(REPO_ROOT, 'src'))
  const manifest = statSync(join(REPO_ROOT, 'oclif.manifest.json'), {throwIfNoEntry: false})
  if (!dist || !manifest || manifest.mtimeMs < source.ms)
    return {
      refused: `dist/ is older than ${relative(REPO_ROOT, source.path)}: the tests would run an old gw. Build first: npm run build`,
    }
  const dir = mkdtempSync(join(tmpdir(), 'gw-build-'))
  const {files} = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {files: string[]}
  // npm's package holds the README beside its files.
  for (const file of ['package.json', 'README.md', ...files.map((name) => name.replace(/^\//, ''))])
    cpSync(join(REPO_ROOT, file), join(dir, file), {recursive: true})
  return {dir}
}

/** One copy for the whole run: vitest sets up each project (tier) with this, all in its main process. */
const run = globalThis as {gwBuildCopy?: {build: {dir?: string; refused?: string}; projects: number}}

export default function setup(project: TestProject) {
  // An installed gw under test (npm run test:installed) is its own copy.
  run.gwBuildCopy ??= {build: process.env.GW_TEST_COMMAND ? {} : copyBuild(), projects: 0}
  const copy = run.gwBuildCopy
  copy.projects++
  project.provide('gwBuild', copy.build)
  return () => {
    if (--copy.projects > 0) return
    if (copy.build.dir) rmSync(copy.build.dir, {recursive: true, force: true})
    run.gwBuildCopy = undefined
  }
}
