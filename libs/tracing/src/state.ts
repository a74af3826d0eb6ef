import { trace, type Tracer } from '@opentelemetry/api';

/**
 * Whether this process traces. While it does not, every helper of this library returns at once: no span objects, no
 * context switches (the OpenTelemetry API would make no-op ones, which still cost a little per call).
 */
let enabled = false;
/** The platform's tracer, taken once when tracing starts (looking it up per span cost a map lookup and a key). */
let current: Tracer | undefined;
/** Turns tracing on or off; on, after the tracer provider was registered (setup.ts). */
export const setTracingEnabled = (on: boolean) => {
  enabled = on;
  current = on ? trace.getTracer('agent-platform') : undefined;
};
export const tracingEnabled = () => enabled;

/** The platform's tracer (the SDK's, once setup.ts registered it). */
export const tracer = (): Tracer => current ?? trace.getTracer('agent-platform');
