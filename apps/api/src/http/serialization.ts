import fastJson from 'fast-json-stringify';

type Serializer = (data: unknown) => string;

const compiled = new WeakMap<object, Serializer>();

/**
 * A route's answer serializer (fast-json-stringify, as Fastify's own), compiled on the route's first answer rather
 * than when it is registered, and once a process for each schema: every app built in a process shares it.
 */
export function compileSerializer({ schema }: { schema: object }): Serializer {
  let serialize: Serializer | undefined;
  return (data) => {
    serialize ??= compiled.get(schema);
    if (!serialize) {
      serialize = fastJson(schema);
      compiled.set(schema, serialize);
    }
    return serialize(data);
  };
}
