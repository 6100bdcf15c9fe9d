/**
 * What a command reads and writes besides its files: its output streams, its input and its
 * environment. The process's by default; a test running a command in-process gives its own, so
 * that nothing a command says goes anywhere but the streams it was given.
 */
export type Output = NodeJS.WritableStream & {isTTY?: boolean; columns?: number}

/** Where a view goes: a terminal (of `width` columns), or a pipe or a file. */
export interface OutputForm {
  terminal: boolean
  width?: number
}

export const formOf = (out: Output): OutputForm =>
  out.isTTY ? {terminal: true, ...(out.columns ? {width: out.columns} : {})} : {terminal: false}

export interface CommandIO {
  stdout: Output
  stderr: Output
  /** `fd`: its file descriptor, from which what a user gives as `-` is read whole (standard-input.ts). */
  stdin: NodeJS.ReadableStream & {isTTY?: boolean; fd?: number | null}
  env: Readonly<Record<string, string | undefined>>
}

/** The process's own streams and environment. */
export const processIO = (): CommandIO => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
})

/** Whether both ends of a conversation are a terminal: a question can be asked. */
export const canAsk = (io: CommandIO): boolean => Boolean(io.stdin.isTTY && io.stderr.isTTY)
