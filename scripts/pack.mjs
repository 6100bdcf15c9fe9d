#!/usr/bin/env node
// npm run package [-- DIR]: the npm package of this build, named by it (gw-0.1.0+20261127.4453574.tgz),
// into DIR (default: this folder). Run `npm run build` first. The package is packed from a folder of
// its own holding what it ships, with package.json as shipped (shippedPackageJson): the build's name
// as its version, which npm keeps in the tarball's name and in `npm ls -g`, and of the scripts only the
// check that refuses to install on a Node gw cannot run on (bin/node-check.js); oclif's manifest says
// the same version. Plain `npm pack` in the
// checkout is refused (prepack): it would name the tarball by the version alone.
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {builtBuild} from './build-id.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const destination = resolve(process.argv[2] ?? '.')
if (!existsSync(join(root, 'dist', 'build.json'))) throw new Error('Run npm run build first: dist/ is missing.')

/** package.json as the package ships it: this build's name, and no script but the Node check before install. */
function shippedPackageJson() {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return {...manifest, version: builtBuild(root).id, scripts: {preinstall: 'node bin/node-check.js'}}
}

/** Links of the README and the guides to files the package does not hold: a reader of the installed package would find none. */
function missingLinks(stage) {
  // The pages, not the pictures beside them (the desk's screenshot).
  const guides = readdirSync(join(stage, 'docs')).filter((name) => name.endsWith('.md'))
  const pages = ['README.md', ...guides.map((name) => join('docs', name))]
  return pages.flatMap((page) =>
    [...readFileSync(join(stage, page), 'utf8').matchAll(/\]\(([^)#\s]+)[^)]*\)/g)]
      .map(([, target]) => target)
      .filter((target) => !/^[a-z]+:/i.test(target) && !existsSync(join(stage, dirname(page), target)))
      .map((target) => `${page}: ${target}`),
  )
}

const stage = mkdtempSync(join(tmpdir(), 'gw-pack-'))
try {
  const manifest = shippedPackageJson()
  for (const file of [...manifest.files, 'README.md']) cpSync(join(root, file), join(stage, file), {recursive: true})
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  // oclif warns on every command when its manifest names another version than package.json.
  const commands = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
  writeFileSync(join(stage, 'oclif.manifest.json'), JSON.stringify({...commands, version: manifest.version}))
  const missing = missingLinks(stage)
  if (missing.length) throw new Error(`Links to files the package lacks: ${missing.join(', ')}`)
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm']
  const args = ['pack', '--ignore-scripts', '--silent', '--pack-destination', destination]
  const packed = spawnSync(npm[0], [...npm.slice(1), ...args], {
    cwd: stage,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (packed.status !== 0) process.exit(packed.status ?? 1)
  process.stdout.write(`${join(destination, packed.stdout.trim())}\n`)
} finally {
  rmSync(stage, {recursive: true, force: true})
}
