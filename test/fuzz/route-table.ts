/** The routes an express app really serves, to check that its OpenAPI document lists every one of them. */
import type { Express } from 'express';

interface Layer {
  slash?: boolean;
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** The ops endpoints every service serves beside its API (contract §1); documents list only the API. */
const OPS = /^\/(healthz|readyz|metrics|openapi\.json|docs)/;

/** `GET /v3/agents/{}`: method and path with every parameter as `{}` and no trailing slash. */
export const routeKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/:[A-Za-z_]+|\{[^}]+\}/g, '{}').replace(/(.)\/$/, '$1')}`;

function collect(stack: Layer[], out: Set<string>): void {
  for (const layer of stack) {
    if (layer.route) {
      // A route may serve several paths (`r.post([a, b], ...)`).
      for (const path of ([] as string[]).concat(layer.route.path)) {
        if (OPS.test(path)) continue;
        for (const [method, on] of Object.entries(layer.route.methods))
          if (on && method !== '_all') out.add(routeKey(method, path));
      }
    } else if (layer.slash && layer.handle?.stack) {
      collect(layer.handle.stack, out); // a router mounted at the root
    }
  }
}

/** Every API route of `app` as a routeKey. */
export function routeTable(app: Express): Set<string> {
  const out = new Set<string>();
  collect((app as unknown as { router: { stack: Layer[] } }).router.stack, out);
  return out;
}
