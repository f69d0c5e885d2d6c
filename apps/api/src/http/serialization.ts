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
 * null (`nullable`), literals of one type or null (`enum`), objects told apart by a property (`oneObject`), or null.
 * Undefined for any other union. A branch that is itself a bare union counts as its branches.
 */
function withoutChoice(branches: unknown[]): Json | undefined {
  const flat = branches.flatMap((branch) => (isBareUnion(branch) ? (branch.anyOf as unknown[]) : [branch]));
  const others = flat.filter((branch) => !isNullType(branch));
  const nullable = others.length < flat.length ? { nullable: true } : {};
  const [first] = others;
  if (others.length === 1 && isPlainType(first) && nullable.nullable) return { ...first, ...nullable };
  if (isLiteral(first) && others.every((branch) => isLiteral(branch) && branch.type === first.type)) {
    return { type: first.type, enum: others.map((branch) => (branch as { const: unknown }).const), ...nullable };
  }
  const merged = oneObject(others.map(serializerSchema));
  return merged && { ...merged, ...nullable };
}

const isBareUnion = (branch: unknown): branch is { anyOf: unknown[] } =>
  typeof branch === 'object' &&
  branch !== null &&
  Array.isArray((branch as Json).anyOf) &&
  Object.keys(branch).length === 1;

/** The one value of a literal property (`const`, or an `enum` of one), or undefined. */
const literalOf = (schema: unknown): unknown =>
  isPlainType(schema)
    ? (schema.const ?? (Array.isArray(schema.enum) && schema.enum.length === 1 ? schema.enum[0] : undefined))
    : undefined;

/**
 * Objects told apart by a required property of a constant value in each (a discriminated union: a wallet's custody,
 * by `provider`) as one object of all their properties, the discriminator an `enum` of their values and the only one
 * required: a value of a branch has that branch's properties, so it is written as that branch writes it. Undefined
 * unless every branch is such an object and a property of two branches is the same schema in both.
 */
function oneObject(objects: unknown[]): Json | undefined {
  if (
    objects.length < 2 ||
    !objects.every((o) => isPlainType(o) && o.type === 'object' && !('additionalProperties' in o))
  )
    return undefined;
  const branches = objects as { properties?: Record<string, unknown>; required?: string[] }[];
  const discriminator = branches[0]?.required?.find((key) =>
    branches.every((b) => b.required?.includes(key) && typeof literalOf(b.properties?.[key]) === 'string'),
  );
  if (!discriminator) return undefined;
  const values = branches.map((b) => literalOf(b.properties?.[discriminator]));
  if (new Set(values).size !== values.length) return undefined;
  const properties: Record<string, unknown> = { [discriminator]: { type: 'string', enum: values } };
  for (const branch of branches) {
    for (const [key, schema] of Object.entries(branch.properties ?? {})) {
      if (key === discriminator) continue;
      if (key in properties && JSON.stringify(properties[key]) !== JSON.stringify(schema)) return undefined;
      properties[key] = schema;
    }
  }
  return { type: 'object', properties, required: [discriminator] };
}

/**
 * The schema an answer is serialized with: the route's, with each union fast-json-stringify would choose a branch
 * of with Ajv written without a choice where the union allows it (`withoutChoice`: a nullable field, an enumeration
 * of literals, objects told apart by a property). For an `anyOf`, fast-json-stringify builds an Ajv instance and
 * compiles each branch in every process (9.6 s of the test suite's CPU in whole-suite profiles), then validates the
 * field in every answer to choose. The JSON is the same for every value the union accepts; a value outside it is
 * written as its type says, as in every field of a plain type, instead of failing the answer (TypeScript holds the
 * answers' types, and the tests check every answer against the OpenAPI document).
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
