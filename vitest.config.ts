import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    // test/unit: pure pieces of src, fast; test/e2e: the built CLI against a real sandbox on loopback.
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
})
