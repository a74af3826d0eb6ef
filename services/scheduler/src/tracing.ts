/**
 * Tracing starts before the modules it instruments (node:http, mongodb, ioredis) are loaded: `main.ts` imports this
 * file first. The standard OTEL_* variables configure it (libs/tracing); without an endpoint it stays off.
 */
import { startTracingOrExit } from '@platform/tracing';

startTracingOrExit('scheduler', process.env);
