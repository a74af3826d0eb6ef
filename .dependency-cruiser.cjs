/**
 * The shape of the code (docs/architecture.md), checked by `pnpm lint` on every source file of libs and services:
 * no import cycles, libs never import services, no service imports another's code, and inside a service
 * routes → service → repository → model (a layer never imports one above it; routes never reach storage;
 * services use neither express nor mongoose).
 */
const SRC = '^(libs|services)/[^/]+/src/';
const NPM = (names) => `node_modules/(${names})/`;

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Import cycles make load order matter and layers meaningless.',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'libs-not-services',
      severity: 'error',
      comment: 'A lib is shared by every service; it never imports one.',
      from: { path: '^libs/' },
      to: { path: '^services/' },
    },
    {
      name: 'no-cross-service',
      severity: 'error',
      comment: 'A service never imports another service’s code: what two share moves into libs/.',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: ['^services/$1/'] },
    },
    {
      name: 'routes-call-services',
      severity: 'error',
      comment: 'Routes validate, call a service and respond; storage is reached only through a service.',
      from: { path: `${SRC}.+\\.routes\\.ts$` },
      to: { path: ['\\.(repository|model)\\.ts$', NPM('mongoose')] },
    },
    {
      name: 'services-free-of-http-and-storage',
      severity: 'error',
      comment: 'Services hold the rules: no express, no mongoose, no models, no routes.',
      from: { path: `${SRC}.+\\.service\\.ts$` },
      to: { path: ['\\.(routes|model)\\.ts$', NPM('express|mongoose')] },
    },
    {
      name: 'storage-below-services',
      severity: 'error',
      comment: 'Repositories and models never import the layers above them.',
      from: { path: `${SRC}.+\\.(repository|model)\\.ts$` },
      to: { path: ['\\.(routes|service)\\.ts$', NPM('express')] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
