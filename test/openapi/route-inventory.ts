/**
 * What an express 5 app really serves, read from its router: every route (method and path, with mounted routers'
 * prefixes) and every sub-application mounted at a path (such as a dashboard), so a document can be compared with it.
 */
import type { Express } from 'express';

interface Layer {
  /** router 2.x keeps the path a layer was declared with. */
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[]; name?: string; handle?: unknown; set?: unknown };
  name?: string;
}

/** An express application used as middleware (`router.use(path, app)`, `app.use(path, app)`): opaque from outside. */
const isSubApp = (layer: Layer) =>
  layer.name === 'mounted_app' ||
  (typeof layer.handle?.handle === 'function' && typeof layer.handle.set === 'function');

/** The ops endpoints every service serves beside its API (contract §1); documents list only the API. */
const OPS = /^\/(healthz|readyz|metrics|openapi\.json|docs)(\/|$)/;

/** Express `:param` (and path-to-regexp 8's `{/:param}`-free forms) as the document's `{param}`; no trailing slash. */
export const toTemplate = (path: string): string =>
  path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}').replace(/(.)\/+$/, '$1');

/** `GET /v3/agents/{}`: method and template with every parameter as `{}`, for comparing names-blind. */
export const shapeKey = (method: string, template: string): string =>
  `${method.toUpperCase()} ${toTemplate(template).replace(/\{[^}]+\}/g, '{}')}`;

export interface RouteInventory {
  /** `METHOD /path/{param}` of every API route. */
  routes: Set<string>;
  /** Path prefixes where a sub-application (not a Router) is mounted: what it serves is its own. */
  mounts: Set<string>;
  /** Layers whose path is not a plain string (a RegExp or a pattern list): they cannot be compared, so they are reported. */
  unreadable: string[];
}

const pathsOf = (raw: unknown): unknown[] => (Array.isArray(raw) ? raw.flat(Infinity) : [raw]);

function collect(stack: Layer[], prefix: string, out: RouteInventory): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const p of pathsOf(layer.route.path)) {
        if (typeof p !== 'string') {
          out.unreadable.push(`${prefix} route ${String(p)}`);
          continue;
        }
        const full = toTemplate(prefix + p);
        if (OPS.test(full)) continue;
        for (const [method, on] of Object.entries(layer.route.methods))
          if (on && method !== '_all') out.routes.add(`${method.toUpperCase()} ${full}`);
      }
      continue;
    }
    if (layer.slash) {
      if (layer.handle?.stack) collect(layer.handle.stack, prefix, out); // a router mounted at the root
      continue;
    }
    for (const p of pathsOf(layer.rawPath)) {
      if (typeof p !== 'string') {
        out.unreadable.push(`${prefix} use ${String(p)}`);
        continue;
      }
      const at = toTemplate(prefix + p);
      if (OPS.test(at)) continue;
      if (layer.handle?.stack) collect(layer.handle.stack, prefix + p, out);
      else if (isSubApp(layer)) out.mounts.add(at);
    }
  }
}

/** The routes and mounted sub-applications of `app`. */
export function routeInventory(app: Express): RouteInventory {
  const out: RouteInventory = { routes: new Set(), mounts: new Set(), unreadable: [] };
  collect((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}
