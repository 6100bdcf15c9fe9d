import {defineConfig} from 'vitest/config'

/**
 * Three tiers, each a project (`vitest run --project commands`):
 * - unit: pure pieces of src, fast;
 * - commands: gw's commands run in-process from src/ against a sandbox server on loopback
 *   (test/helpers/in-process.ts): one command's cases in its file (test/commands/<topic>/<verb>.test.ts,
 *   and <verb>.<aspect>.test.ts beside it where one command has many), a user's journey across
 *   commands in test/journeys/<journey>.test.ts; a case that needs a process of its own (Ctrl-C, a
 *   listener) spawns the built gw, and npm run test:installed runs a day of them against an
 *   installed gw;
 * - e2e: what only a process shows (signals, a kill and the resume, exit codes as a shell sees
 *   them, terminals), spawning the built gw: a dist/ older than src/ is refused (test/helpers/gw-under-test.ts).
 * The unit and command tiers run their files one after another in each worker without a fresh
 * module registry for each file (isolate: false), as one long-lived process runs many commands:
 * a command must leave nothing behind for the next (a store left open, standard input taken),
 * and the source is loaded once a worker, not once a file.
 */
export default defineConfig({
  test: {
    // Bounds that catch a hang, never a slow machine: no verdict depends on how fast it is (bench/
    // measures that); what a case waits for has its own bound below this (test/helpers/shared.ts, HANG_MS).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // The build the spawned tests run, copied once a run (test/helpers/build-copy.ts).
    globalSetup: ['test/helpers/build-copy.ts'],
    pool: 'forks',
    fileParallelism: true,
    // Three files at once on two cores: an end-to-end case mostly waits (on gw, the sandbox's
    // latencies, timers), and so does a command's (on the sandbox).
    maxWorkers: 3,
    projects: [
      {extends: true, test: {name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false}},
      {
        extends: true,
        test: {
          name: 'commands',
          include: ['test/commands/**/*.test.ts', 'test/journeys/**/*.test.ts'],
          isolate: false,
          env: {GW_TEST_TIER: 'commands'},
        },
      },
      {
        extends: true,
        test: {name: 'e2e', include: ['test/e2e/**/*.test.ts']},
      },
    ],
  },
})
