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
  // The chaos suites take the stack's stores away for tens of seconds: `pnpm test:chaos` runs them on their own.
  testPathIgnorePatterns: process.env.JEST_CHAOS ? ['/node_modules/'] : ['/node_modules/', '/test/chaos/'],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  // Every supertest response a test gets is checked against the document of the app that answered it.
  setupFilesAfterEnv: ['<rootDir>/test/openapi/response-recorder.ts'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
};
