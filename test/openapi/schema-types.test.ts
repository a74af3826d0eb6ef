/**
 * One definition per shape: the committed `*.schemas.types.ts` files are what `pnpm schemas:types` writes now from
 * the joi schemas, every named schema is typed with its generated type, and validate() returns that type.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import Joi from 'joi';

import { classNameOf, pageSchema, parametersOf, schemaComponents, validate, type Page } from '@platform/http';

interface Generator {
  generate(load: (path: string) => unknown): Promise<Record<string, string>>;
  schemaFiles(): string[];
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require('../../scripts/schema-types.cjs') as Generator;
const ROOT = `${__dirname}/../..`;
const REGENERATE = 'run `pnpm schemas:types` and commit the *.schemas.types.ts files';

describe('generated types', () => {
  let generated: Record<string, string>;
  beforeAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    generated = await generator.generate((path) => require(path) as unknown);
  }, 60_000);

  test('each committed types file is what the generator writes from its schemas now', () => {
    expect(Object.keys(generated).length).toBeGreaterThan(5);
    for (const [file, content] of Object.entries(generated)) {
      let committed = '';
      try {
        committed = readFileSync(file, 'utf8');
      } catch {
        // reported below as a difference
      }
      expect({ file: relative(ROOT, file), content: committed, hint: REGENERATE }).toEqual({
        file: relative(ROOT, file),
        content,
        hint: REGENERATE,
      });
    }
  });

  test('every named schema is declared with the type generated for it: Joi.object<Name>(...)', () => {
    for (const file of generator.schemaFiles()) {
      const source = readFileSync(file, 'utf8');
      for (const [, name] of source.matchAll(/className: '([A-Za-z0-9_]+)'/g)) {
        expect({ file: relative(ROOT, file), name, typed: new RegExp(`<${name}>`).test(source) }).toEqual({
          file: relative(ROOT, file),
          name,
          typed: true,
        });
      }
    }
  });
});

describe('validate() and the document helpers', () => {
  test('validate() returns the schema type, with defaults applied', () => {
    const page: Page = validate(pageSchema, { skip: '3' }, 'query');
    expect(page).toEqual({ skip: 3, limit: 50 });
  });

  test('a schema declared without a type validates to unknown, which must be narrowed before use', () => {
    const untyped = Joi.object({ a: Joi.string() });
    const value = validate(untyped, { a: 'x' }, 'body');
    // @ts-expect-error: unknown has no property `a`
    expect(value.a).toBe('x');
  });

  test('components are named by className; a named shape nested in another is a $ref; requests allow unknown keys', () => {
    const item = Joi.object({ id: Joi.string().required() }).meta({ className: 'Item' });
    const list = Joi.object({ items: Joi.array().items(item).required() }).meta({ className: 'ItemList' });
    const body = Joi.object({ name: Joi.string().required().description('The name') }).meta({ className: 'ItemBody' });
    const components = schemaComponents({ request: [body], response: [item, list] });
    expect(Object.keys(components).sort()).toEqual(['Item', 'ItemBody', 'ItemList']);
    expect(components.ItemList).toEqual({
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } },
      required: ['items'],
      additionalProperties: false,
    });
    expect(components.ItemBody).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: 'The name' } },
      required: ['name'],
    });
    expect(classNameOf(list)).toBe('ItemList');
    expect(() => schemaComponents({ response: [Joi.object({})] })).toThrow(/className/);
    expect(() => schemaComponents({ response: [item, item] })).toThrow(/two component schemas/);
  });

  test('parameters carry name, place, requiredness, description and schema', () => {
    const query = Joi.object({
      q: Joi.string().min(1).required().description('Search text'),
      n: Joi.number().integer().default(5),
    });
    expect(parametersOf(query, 'query')).toEqual([
      { name: 'q', in: 'query', required: true, description: 'Search text', schema: { type: 'string', minLength: 1 } },
      { name: 'n', in: 'query', schema: { type: 'integer', default: 5 } },
    ]);
    expect(parametersOf(Joi.object({ id: Joi.string() }), 'path')[0]).toMatchObject({ required: true });
  });
});
