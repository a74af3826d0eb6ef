/**
 * The documented query parameters of the execution lists (`…/executions`, `…/logs`, `…/executions/recent`), in the
 * order the document has always listed them. They come from the same schemas the routes validate with
 * (`logsQuery`, `recentQuery`); `status` is a repeatable parameter and `from`/`to` say which bound is inclusive, which
 * `parametersOf` alone cannot write, so the routes give these lists as their documented `parameters`.
 */
import type Joi from 'joi';

import { parametersOf } from '@platform/http';

import { logsQuery, recentQuery } from './execution.schemas';

type Json = Record<string, unknown>;

const BOUNDS: Record<string, string> = { from: 'inclusive', to: 'exclusive' };

function executionParameters(schema: Joi.ObjectSchema, first: string[]): Json[] {
  const byName = new Map(parametersOf(schema, 'query').map((p) => [p.name as string, p]));
  const order = [...first, 'status', 'success', 'from', 'to', 'skip', 'limit'];
  return order.map((name) => {
    const p = byName.get(name)!;
    if (name === 'status') return { ...p, style: 'form', explode: true };
    if (BOUNDS[name]) return { ...p, schema: { ...(p.schema as Json), description: BOUNDS[name] } };
    return p;
  });
}

/** One webhook's or schedule's runs: the parent's path parameters (`path`), then the filters of `logsQuery`. */
export const logsParameters = (path: Joi.ObjectSchema): Json[] => [
  ...parametersOf(path, 'path'),
  ...executionParameters(logsQuery, []),
];

/** The runs of one kind in the last hours: the filters of `recentQuery`. */
export const recentParameters: Json[] = executionParameters(recentQuery, ['agent_id', 'hours']);
