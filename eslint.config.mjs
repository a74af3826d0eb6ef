import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const SOURCES = ['libs/*/src/**/*.ts', 'services/*/src/**/*.ts'];

export default tseslint.config(
  // libs/sdk/src/generated: openapi-typescript's output, compared byte for byte with what it writes.
  { ignores: ['**/dist/**', '**/node_modules/**', '.run/**', '.tools/**', 'coverage/**', 'libs/sdk/src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'error',
    },
  },
  // Source files get the type-aware rules: no floating or misused promises, no `any` flowing through, no needless
  // assertions. (Tests keep the plain rules: supertest bodies are `any` by design, and typing them all buys little.)
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files: SOURCES })),
  {
    files: SOURCES,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // Files and functions a reader can hold: no file over 400 lines, no function over 120 in sources, benchmarks and
  // tests (a long describe block registers its tests through named functions). Generated files (the schema types, the
  // gitleaks rules, the SDK) are not read.
  {
    files: ['**/*.ts', '**/*.js', '**/*.cjs', '**/*.mjs'],
    ignores: ['**/*.schemas.types.ts', '**/*.generated.ts'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
  {
    files: [...SOURCES, 'bench/**/*.ts', '**/test/**/*.ts', 'services/*/bench/**/*.ts', 'services/*/scripts/**/*.ts'],
    ignores: ['**/*.schemas.types.ts', '**/*.generated.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 120 }] },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      globals: { module: 'writable', require: 'readonly', process: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The gateway's operations console runs in the browser (plain script, no bundle).
  {
    files: ['services/gateway/console/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        document: 'readonly',
        window: 'readonly',
        location: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        URLSearchParams: 'readonly',
        Node: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  // Layout is Prettier's (`pnpm lint` checks it): the rules it would fight are off.
  prettier,
);
