import type { registerSdk as RegisterSdk } from './sdk';
import { TracingConfigError, tracingSettings } from './settings';
import { setTracingEnabled } from './state';

let provider: { shutdown(): Promise<void> } | undefined;

/**
 * Starts tracing for this process when the OTEL_* variables ask for it (see settings.ts): spans of incoming and
 * outgoing HTTP (http-spans.ts: the W3C `traceparent` read and sent), of MongoDB and Redis commands made inside a
 * traced operation, and the platform's own spans, batched to the OTLP/HTTP endpoint. Must run before mongodb or
 * ioredis are loaded, so each service's `main.ts` imports its `tracing.ts` first. Returns whether tracing is on.
 * While it is off, the OpenTelemetry SDK is not even loaded.
 */
export function startTracing(defaultServiceName: string, env: Record<string, string | undefined>): boolean {
  const settings = tracingSettings(env, defaultServiceName);
  if (!settings || provider) return provider !== undefined;
  // Loaded here, not at the top: a process that does not trace pays nothing for the SDK (its load time included).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./sdk') as { registerSdk: typeof RegisterSdk };
  provider = sdk.registerSdk(settings);
  setTracingEnabled(true);
  return true;
}

/** Sends the spans still queued (within `timeoutMs`) and stops tracing; on shutdown, after the last request. */
export async function stopTracing(timeoutMs = 5_000): Promise<void> {
  const p = provider;
  if (!p) return;
  provider = undefined;
  setTracingEnabled(false);
  await Promise.race([p.shutdown().catch(() => undefined), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
}

/**
 * `startTracing` for a service's entry point: a setting it cannot use ends the process with the reason, as a bad
 * variable of the service's own config does.
 */
export function startTracingOrExit(service: string, env: Record<string, string | undefined>): void {
  try {
    startTracing(service, env);
  } catch (err) {
    if (!(err instanceof TracingConfigError)) throw err;
    process.stderr.write(`${service}: failed to start: ${err.message}\n`);
    process.exit(1);
  }
}
