import type { TSchema } from 'typebox';

/**
 * Named component schemas. Route schemas embed these objects directly (Fastify validates them inline); the
 * OpenAPI generator recognises each by identity and writes a `$ref` to `#/components/schemas/<name>` instead.
 */
const registry = new Map<object, string>();
const byName = new Map<string, TSchema>();

export function component<T extends TSchema>(name: string, schema: T): T {
  if (byName.has(name)) throw new Error(`Component ${name} is declared twice`);
  registry.set(schema, name);
  byName.set(name, schema);
  return schema;
}

export function componentName(schema: object): string | undefined {
  return registry.get(schema);
}

export function components(): ReadonlyMap<string, TSchema> {
  return byName;
}
