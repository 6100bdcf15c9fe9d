// Runs a command on the terminal it is started in, as a shell runs a job, and writes how it ended
// ({code, signal}) to a file. When the terminal is closed it passes the hang-up (SIGHUP) on to the
// command, as an interactive shell does to its jobs, and outlives it: what a test of a hang-up reads.
// Usage: node exit-recorder.mjs FILE COMMAND [ARGS...]
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'

const [file, command, ...args] = process.argv.slice(2)
const child = spawn(command, args, {stdio: 'inherit'})
process.on('SIGHUP', () => child.kill('SIGHUP'))
child.on('exit', (code, signal) => writeFileSync(file, JSON.stringify({code, signal})))
