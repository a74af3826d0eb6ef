/**
 * `require` of the workspace's TypeScript sources from plain Node scripts (the generators): `.ts` files compiled by
 * SWC (the compiler jest uses) and `@platform/<lib>` read from `libs/<lib>/src`, so nothing needs building first.
 */
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
let registered = false;

function registerTypeScript() {
  if (registered) return;
  registered = true;
  const { transformSync } = require(require.resolve('@swc/core', { paths: [ROOT] }));
  Module._extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      filename,
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    const lib = /^@platform\/([a-z-]+)$/.exec(request);
    return lib ? join(ROOT, 'libs', lib[1], 'src', 'index.ts') : resolve.call(this, request, ...rest);
  };
}

module.exports = { registerTypeScript, ROOT };
