/** Jest runs every package's tests from the root: TypeScript through SWC, workspace libs from source. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  moduleNameMapper: { '^@platform/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts' },
  testTimeout: 30000,
  // The chaos suites take the stack's stores away for tens of seconds: `pnpm test:chaos` runs them on their own. The
  // index-discipline check reads what the other suites recorded: scripts/test.sh runs it after them.
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(process.env.JEST_CHAOS ? [] : ['/test/chaos/']),
    ...(process.env.QUERY_LOG_DIR ? [] : ['\\.check\\.test\\.ts$']),
  ],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  // The path MongoDB takes through libs/db (all of it but the development server's adapter) is measured on the whole
  // run (scripts/test.sh sets DB_COVERAGE) and must stay covered.
  ...(process.env.DB_COVERAGE === '1'
    ? {
        collectCoverage: true,
        collectCoverageFrom: ['libs/db/src/**/*.ts', '!libs/db/src/ferretdb/**'],
        coverageReporters: ['text'],
        coverageThreshold: { global: { lines: 95 } },
      }
    : {}),
  // Every supertest response a test gets is checked against the document of the app that answered it.
  setupFilesAfterEnv: ['<rootDir>/test/openapi/response-recorder.ts'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
};
