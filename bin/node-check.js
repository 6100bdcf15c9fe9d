// gw keeps its history in the SQLite built into Node 22.13 and later: an older Node gets one line
// saying what to do (under --json, an error document on stdout too), never a stack trace from deep
// inside. bin/run.js runs it first; the package runs it before npm installs it (preinstall), so an
// upgrade on an older Node is refused while the gw already installed stays as it was.

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 13)) {
  const installing = process.env.npm_lifecycle_event === 'preinstall'
  // A checkout's npm ci brings the project's Node (node_modules/.bin/node), which npx puts first.
  // Imported only here: an import of node:fs on every start would load Node's streams (compile-cache.js).
  const {existsSync} = await import('node:fs')
  const checkout = existsSync(new URL('../node_modules/.bin/node', import.meta.url))
  const message = `${installing ? 'gw was not installed: it needs' : 'gw needs'} Node.js 22.13 or later; this is Node.js ${process.versions.node}.`
  const advice = checkout
    ? "In this checkout, run it as npx gw (npx runs it on the project's own Node)."
    : `Install a current LTS from https://nodejs.org${installing ? ' and install gw again (the gw installed before is unchanged)' : ''}, or use gw's single executable, which carries its own Node (README: "Installing gw").`
  if (!installing && process.argv.includes('--json'))
    process.stdout.write(`${JSON.stringify({error: {kind: 'usage', exit_code: 2, message, advice}}, null, 2)}\n`)
  process.stderr.write(`${message} ${advice}\n`)
  process.exit(2)
}
