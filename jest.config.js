/** Jest runs every package's tests from the root: TypeScript through SWC, workspace libs from source. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  moduleNameMapper: { '^@platform/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts' },
  testTimeout: 30000,
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};
