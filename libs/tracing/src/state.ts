import { trace } from '@opentelemetry/api';

/**
 * Whether this process traces. While it does not, every helper of this library returns at once: no span objects, no
 * context switches (the OpenTelemetry API would make no-op ones, which still cost a little per call).
 */
let enabled = false;
export const setTracingEnabled = (on: boolean) => {
  enabled = on;
};
export const tracingEnabled = () => enabled;

/** The platform's tracer (the SDK's, once setup.ts registered it). */
export const tracer = () => trace.getTracer('agent-platform');
