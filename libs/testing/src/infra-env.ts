/**
 * The environment for infrastructure a test starts (redis-server, the store's server): this process's, without a clock shim.
 * `pnpm test:any-date` moves the clocks of the test processes and of the services they start; the servers of the
 * stack keep the real clock (nothing of ours reads theirs), and redis-server does not even start under the shim.
 */
export function infraEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name === 'LD_PRELOAD' || name.startsWith('FAKETIME')) delete env[name];
  }
  return env;
}
