import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const SERVICES = resolve(__dirname, '../../services');

// Tracing patches node:http, mongodb and ioredis as they are loaded: a service that loads them before starting it
// would run untraced, silently. So every service starts it in src/tracing.ts, which its main.ts imports first.
describe.each(readdirSync(SERVICES).filter((s) => !s.startsWith('.')))('the %s service', (service) => {
  it('starts tracing in src/tracing.ts, under its own name, and main.ts imports it before anything else', () => {
    const tracing = readFileSync(join(SERVICES, service, 'src/tracing.ts'), 'utf8');
    expect(tracing).toContain(`startTracingOrExit('${service}', process.env);`);
    expect(tracing.match(/^import .*$/gm)).toEqual(["import { startTracingOrExit } from '@platform/tracing';"]);
    const main = readFileSync(join(SERVICES, service, 'src/main.ts'), 'utf8');
    expect(main.match(/^import .*$/m)?.[0]).toBe("import './tracing';");
  });
});
