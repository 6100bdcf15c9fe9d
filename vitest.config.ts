import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    // test/unit: pure pieces of src, fast; test/e2e: the built CLI against a real sandbox on loopback.
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    // Three files at once on two cores: an end-to-end case mostly waits (on gw, the sandbox's
    // latencies, timers). The user-level files took 69 s with two, 47 s with three (41 s with four,
    // each case slower: the cores were full).
    maxWorkers: 3,
  },
})
