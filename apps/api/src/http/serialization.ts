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
      serialize = fastJson(serializerSchema(schema) as object);
      compiled.set(schema, serialize);
    }
    return serialize(data);
  };
}

type Json = { [key: string]: unknown };

const isNullType = (branch: unknown) =>
  typeof branch === 'object' && branch !== null && Object.keys(branch).length === 1 && (branch as Json).type === 'null';

/** A schema of one plain type (no reference or combination), which fast-json-stringify writes without choosing. */
const isPlainType = (branch: unknown): branch is Json =>
  typeof branch === 'object' &&
  branch !== null &&
  typeof (branch as Json).type === 'string' &&
  !['$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'if'].some((keyword) => keyword in branch);

/** A literal as the route schemas write one (TypeBox's): a type and a constant, nothing else. */
const isLiteral = (branch: unknown): branch is { type: string; const: unknown } =>
  isPlainType(branch) && 'const' in branch && Object.keys(branch).length === 2;

/**
 * What fast-json-stringify can write without choosing a branch, for the unions the route schemas use: a type or
 * null (`nullable`), literals of one type or null (`enum`). Undefined for any other union.
 */
function withoutChoice(branches: unknown[]): Json | undefined {
  const others = branches.filter((branch) => !isNullType(branch));
  const nullable = others.length < branches.length ? { nullable: true } : {};
  const [first] = others;
  if (others.length === 1 && isPlainType(first) && nullable.nullable) return { ...first, ...nullable };
  if (isLiteral(first) && others.every((branch) => isLiteral(branch) && branch.type === first.type)) {
    return { type: first.type, enum: others.map((branch) => (branch as { const: unknown }).const), ...nullable };
  }
  return undefined;
}

/**
 * The schema an answer is serialized with: the route's, with each union fast-json-stringify would choose a branch
 * of with Ajv written without a choice where the union allows it (`withoutChoice`: a nullable field, an enumeration
 * of literals). For an `anyOf`, fast-json-stringify builds an Ajv instance and compiles each branch in every process
 * (9.6 s of the test suite's CPU in whole-suite profiles), then validates the field in every answer to choose. The
 * JSON is the same for every value the union accepts; a value outside it is written as its type says, as in every
 * field of a plain type, instead of failing the answer (TypeScript holds the answers' types, and the tests check
 * every answer against the OpenAPI document).
 */
export function serializerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializerSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { anyOf, ...rest } = schema as Json;
  const plain = Array.isArray(anyOf) ? withoutChoice(anyOf) : undefined;
  if (plain) return serializerSchema({ ...rest, ...plain });
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = serializerSchema(value);
  return copy;
}
