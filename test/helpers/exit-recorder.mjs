// Runs a command on the terminal it is started in, as a shell runs a job, and writes how it ended
// ({code, signal}) to FILE (its pid to FILE.pid as it starts). When the terminal is closed it
// passes the hang-up on as an interactive shell and the kernel do: SIGHUP from the shell to its
// jobs, then the kernel's own once the shell is gone; and it outlives the command, so that a
// test of a hang-up can read how the command ended.
// Usage: node exit-recorder.mjs FILE COMMAND [ARGS...]
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'

// With EXIT_RECORDER_UNREACHED=1 the hang-up never reaches the command: it runs in a session of
// its own (no kernel SIGHUP) and is passed nothing, so it learns of the closed terminal only from
// its writes there failing (EIO), as it may before its SIGHUP is handled.
const [file, command, ...args] = process.argv.slice(2)
const unreached = process.env.EXIT_RECORDER_UNREACHED === '1'
const child = spawn(command, args, {stdio: 'inherit', detached: unreached})
writeFileSync(`${file}.pid`, String(child.pid))
process.on('SIGHUP', () => {
  if (unreached) return
  child.kill('SIGHUP')
  setTimeout(() => child.kill('SIGHUP'), 100)
})
child.on('exit', (code, signal) => writeFileSync(file, JSON.stringify({code, signal})))
