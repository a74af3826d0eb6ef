/**
 * The example Grafana dashboard (k8s/base/observability/grafana-dashboard.json) queries only metrics the code
 * registers: the HTTP and process metrics every service gets from libs/http (read from a real registry), and the
 * metrics services register themselves (found in their source: new Counter/Gauge/Histogram/Summary({ name })).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { createMetrics } from '@platform/http';

import { K8S, ROOT } from './deploy-helpers';

const DASHBOARD = join(K8S, 'base/observability/grafana-dashboard.json');

interface Target {
  expr?: string;
  refId?: string;
}
interface Panel {
  type: string;
  title?: string;
  targets?: Target[];
  panels?: Panel[];
  gridPos?: { x: number; y: number; w: number; h: number };
}
interface Dashboard {
  uid?: string;
  title?: string;
  panels?: Panel[];
  templating?: { list?: { name: string; query?: unknown; definition?: string }[] };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const panels = (dashboard.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
const queries = [
  ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title ?? '?', expr: t.expr ?? '' }))),
  ...(dashboard.templating?.list ?? [])
    .filter((v) => v.definition)
    .map((v) => ({ where: `variable ${v.name}`, expr: v.definition! })),
];

/** PromQL words that are not metric names. */
const PROMQL = new Set([
  'sum',
  'by',
  'without',
  'rate',
  'irate',
  'increase',
  'histogram_quantile',
  'topk',
  'bottomk',
  'max',
  'min',
  'avg',
  'count',
  'label_values',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'le',
]);

/** Metric names an expression reads: identifiers outside {...} and [...], not functions, keywords or label lists. */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/label_values\(([^,)]+),[^)]*\)/g, '$1')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '')
    .replace(/"[^"]*"/g, '');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .map((m) => m[0])
    .filter((w) => !PROMQL.has(w) && !w.startsWith('$') && !/^[0-9]/.test(w));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'test') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Metrics the services register in their own source, by name, with their type and file. */
function registeredInSource(): Map<string, { type: string; file: string }> {
  const found = new Map<string, { type: string; file: string }>();
  const roots = ['libs', 'services'].flatMap((top) =>
    readdirSync(join(ROOT, top)).map((p) => join(ROOT, top, p, 'src')),
  );
  for (const file of roots.flatMap((r) => {
    try {
      return sourceFiles(r);
    } catch {
      return [];
    }
  })) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /new (Counter|Gauge|Histogram|Summary)\(\s*\{\s*name:\s*'([a-zA-Z_:][a-zA-Z0-9_:]*)'/g,
    )) {
      found.set(m[2]!, { type: m[1]!.toLowerCase(), file: relative(ROOT, file) });
    }
  }
  return found;
}

/** Every series name the code exports: a histogram's name gives _bucket, _sum and _count. */
async function exportedSeries(): Promise<Set<string>> {
  const { registry } = createMetrics('dashboard-test');
  const types = new Map<string, string>();
  for (const m of await registry.getMetricsAsJSON()) types.set(m.name, String(m.type));
  for (const [name, { type }] of registeredInSource()) types.set(name, type);
  const series = new Set<string>();
  for (const [name, type] of types) {
    series.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) series.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) series.add(name + s);
  }
  return series;
}

describe('the Grafana dashboard', () => {
  it('is a dashboard with a stable uid, a Prometheus datasource variable and non-overlapping panels', () => {
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.templating?.list?.map((v) => v.name)).toEqual(expect.arrayContaining(['datasource', 'service']));
    const cells = new Set<string>();
    for (const p of panels) {
      const g = p.gridPos!;
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`)).toBe(false);
          cells.add(`${x},${y}`);
        }
      expect(g.x + g.w).toBeLessThanOrEqual(24);
    }
  });

  it('queries only metrics the code registers', async () => {
    const series = await exportedSeries();
    const used = queries.flatMap((q) => metricsOf(q.expr).map((metric) => ({ where: q.where, metric })));
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((u) => !series.has(u.metric))).toEqual([]);
  });

  it('covers request rate, latency, queue depth, job outcomes and process health', () => {
    const names = new Set(queries.flatMap((q) => metricsOf(q.expr)));
    for (const m of [
      'http_requests_total',
      'http_request_duration_seconds_bucket',
      'queue_jobs',
      'run_attempts_total',
      'run_duration_seconds_bucket',
      'queue_jobs_stalled_total',
      'process_resident_memory_bytes',
    ]) {
      expect(names).toContain(m);
    }
  });

  it('has a parser that sees the metric names of an expression and catches an unknown one', async () => {
    expect(
      metricsOf(
        'histogram_quantile(0.95, sum by (service, le) (rate(http_request_duration_seconds_bucket{service=~"$service"}[5m])))',
      ),
    ).toEqual(['http_request_duration_seconds_bucket']);
    expect(metricsOf('sum by (queue) (queue_jobs{state="waiting"}) / ignoring(state) outbox_backlog')).toEqual([
      'queue_jobs',
      'outbox_backlog',
    ]);
    expect(metricsOf('label_values(http_requests_total, service)')).toEqual(['http_requests_total']);
    const series = await exportedSeries();
    expect(series.has('outbox_backlog')).toBe(false);
    expect(series.has('http_requests_total')).toBe(true);
    expect(series.has('queue_jobs')).toBe(true);
  });
});
