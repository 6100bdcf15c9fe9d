// Another program holding gw's database, as a user's machine has them: Debian's `sqlite3` shell
// with a write transaction open (BEGIN IMMEDIATE), until released. gw has to wait for it, name it,
// and never turn the wait into "nothing was sent" after a refund went out.
import {type ChildProcess, spawn} from 'node:child_process'

interface SqliteHolder {
  pid: number
  /** Commits and ends the shell: the database is free again. */
  release(): Promise<void>
}

/** A `sqlite3` shell on `database` holding a write transaction; resolves once it holds it. */
export async function holdDatabase(database: string): Promise<SqliteHolder> {
  const shell: ChildProcess = spawn('sqlite3', [database], {stdio: ['pipe', 'pipe', 'inherit']})
  // The write lock is taken by the first write; the select's answer says it is held.
  shell.stdin!.write("BEGIN IMMEDIATE;\nCREATE TABLE IF NOT EXISTS held_by_test (x);\nSELECT 'held';\n")
  await new Promise<void>((resolve, reject) => {
    let out = ''
    shell.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('held')) resolve()
    })
    shell.once('exit', (code) => reject(new Error(`sqlite3 ended (${code}) before holding ${database}`)))
    shell.once('error', reject)
  })
  return {
    pid: shell.pid!,
    release: async () => {
      if (shell.exitCode !== null) return
      const ended = new Promise((resolve) => shell.once('exit', resolve))
      shell.stdin!.end('ROLLBACK;\n.quit\n')
      await ended
    },
  }
}
