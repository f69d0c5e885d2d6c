/**
 * A small, generic reading of OpenAPI 3.1 documents for the reference page: `$ref` resolution, nullable
 * `anyOf`, `allOf` merging, type labels, constraints and example values. Pure functions, no React.
 */

export interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  format?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
  properties?: Record<string, SchemaObject>;
  required?: string[];
  additionalProperties?: boolean | SchemaObject;
  items?: SchemaObject;
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  readOnly?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
  nullable?: boolean;
}

export interface MediaType {
  schema?: SchemaObject;
  example?: unknown;
  examples?: Record<string, { summary?: string; value?: unknown; $ref?: string }>;
}

export interface ResponseObject {
  $ref?: string;
  description?: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, { description?: string; schema?: SchemaObject }>;
}

export interface ParameterObject {
  $ref?: string;
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: SchemaObject;
  example?: unknown;
}

export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: ParameterObject[];
  requestBody?: { $ref?: string; required?: boolean; description?: string; content?: Record<string, MediaType> };
  responses?: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
  'x-required-roles'?: string[];
}

export interface SecurityScheme {
  type: string;
  name?: string;
  in?: string;
  scheme?: string;
  bearerFormat?: string;
  description?: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, unknown>>;
  components?: {
    schemas?: Record<string, SchemaObject>;
    securitySchemes?: Record<string, SecurityScheme>;
    [key: string]: unknown;
  };
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  operation: OperationObject;
  parameters: ParameterObject[];
}

export interface TagGroup {
  name: string;
  id: string;
  description?: string;
  operations: Operation[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Follows a local JSON pointer such as `#/components/schemas/Transaction`. */
export function lookup(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`Only local $refs are supported, got ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  if (node === undefined) throw new Error(`Unresolvable $ref ${ref}`);
  return node;
}

/** Resolves `$ref` chains on any object; sibling keywords of the `$ref` (allowed in 3.1) win. */
export function deref<T extends { $ref?: string }>(doc: OpenApiDocument, value: T): T {
  let current = value;
  for (let hops = 0; current?.$ref && hops < 32; hops++) {
    const { $ref, ...siblings } = current;
    current = { ...(lookup(doc, $ref) as T), ...siblings };
  }
  return current;
}

export function refName(schema: SchemaObject | undefined): string | undefined {
  return schema?.$ref?.split('/').pop();
}

/**
 * One schema in a shape that is easy to display: refs resolved, `allOf` merged, and `anyOf`/`oneOf`/`type`
 * arrays with `null` turned into a `nullable` flag.
 */
export function normalize(doc: OpenApiDocument, input: SchemaObject): SchemaObject & { refName?: string } {
  const name = refName(input);
  let schema: SchemaObject = deref(doc, input);
  if (schema.allOf) {
    const { allOf, ...rest } = schema;
    const merged: SchemaObject = { ...rest, properties: { ...rest.properties }, required: [...(rest.required ?? [])] };
    for (const part of allOf.map((p) => normalize(doc, p))) {
      for (const [key, value] of Object.entries(part)) {
        if (key === 'properties') Object.assign(merged.properties ?? {}, value);
        else if (key === 'required') merged.required?.push(...(value as string[]));
        else if (!(key in merged)) (merged as Record<string, unknown>)[key] = value;
      }
    }
    schema = merged;
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const nonNull = variants.filter((v) => deref(doc, v).type !== 'null');
    if (nonNull.length === 1 && nonNull.length < variants.length) {
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      const inner = normalize(doc, nonNull[0] as SchemaObject);
      return { ...inner, ...rest, nullable: true, refName: inner.refName ?? name };
    }
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    const nullable = types.length < schema.type.length;
    return {
      ...schema,
      type: types.length === 1 ? types[0] : types,
      nullable: schema.nullable || nullable,
      refName: name,
    };
  }
  if (!schema.type && schema.properties) schema = { ...schema, type: 'object' };
  return { ...schema, refName: name };
}

/** Human label of a schema's type, e.g. `string <uuid>`, `Array of Transaction`. */
export function typeLabel(doc: OpenApiDocument, input: SchemaObject): string {
  const schema = normalize(doc, input);
  let label: string;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    label = variants.map((v) => typeLabel(doc, v)).join(' or ');
  } else if (schema.type === 'array') {
    label = `Array of ${schema.items ? pluralType(doc, schema.items) : 'any'}`;
  } else if (Array.isArray(schema.type)) {
    label = schema.type.join(' or ');
  } else {
    label = schema.type ?? (schema.const !== undefined ? typeof schema.const : 'any');
    if (schema.type === 'object' && schema.refName) label = `object (${schema.refName})`;
    if (schema.format) label += ` <${schema.format}>`;
  }
  return schema.nullable ? `${label} or null` : label;
}

function pluralType(doc: OpenApiDocument, items: SchemaObject): string {
  const inner = normalize(doc, items);
  if (inner.refName && inner.type === 'object') return `${inner.refName} objects`;
  const label = typeLabel(doc, items);
  return /^(string|integer|number|boolean|object)\b/.test(label) ? label.replace(/^(\w+)/, '$1s') : label;
}

/** Validation keywords in words: `>= 5`, `<= 256 characters`, `pattern ^0x…`, `default 20`. */
export function constraints(schema: SchemaObject): string[] {
  const out: string[] = [];
  if (schema.minimum !== undefined) out.push(`>= ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) out.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) out.push(`<= ${schema.maximum}`);
  if (schema.exclusiveMaximum !== undefined) out.push(`< ${schema.exclusiveMaximum}`);
  if (schema.minLength !== undefined && schema.minLength > 0) out.push(`>= ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) out.push(`<= ${schema.maxLength} characters`);
  if (schema.minItems !== undefined && schema.minItems > 0) out.push(`>= ${schema.minItems} items`);
  if (schema.maxItems !== undefined) out.push(`<= ${schema.maxItems} items`);
  if (schema.pattern) out.push(`pattern ${schema.pattern}`);
  return out;
}

/** The schema's object-like children, if it has any worth expanding (object properties, array items). */
export function childSchema(doc: OpenApiDocument, input: SchemaObject): SchemaObject | undefined {
  const schema = normalize(doc, input);
  if (schema.type === 'object' && schema.properties && Object.keys(schema.properties).length > 0) return schema;
  if (schema.type === 'array' && schema.items) return childSchema(doc, schema.items);
  return undefined;
}

/** Every operation, grouped by tag in the order of the document's `tags`. */
export function groupOperations(doc: OpenApiDocument): TagGroup[] {
  const groups = new Map<string, TagGroup>();
  for (const tag of doc.tags ?? []) {
    groups.set(tag.name, { name: tag.name, id: `tag-${slug(tag.name)}`, description: tag.description, operations: [] });
  }
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item.parameters as ParameterObject[] | undefined) ?? [];
    for (const method of METHODS) {
      const operation = item[method] as OperationObject | undefined;
      if (!operation) continue;
      const tagName = operation.tags?.[0] ?? 'Other';
      if (!groups.has(tagName)) groups.set(tagName, { name: tagName, id: `tag-${slug(tagName)}`, operations: [] });
      const parameters = [...shared, ...(operation.parameters ?? [])].map((p) => deref(doc, p));
      groups.get(tagName)?.operations.push({
        id: operation.operationId ?? slug(`${method} ${path}`),
        method,
        path,
        operation,
        parameters,
      });
    }
  }
  return [...groups.values()].filter((group) => group.operations.length > 0);
}

/** The first example of a media type, else one built from its schema. */
export function exampleOf(doc: OpenApiDocument, media: MediaType | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = media.examples && Object.values(media.examples)[0];
  if (first) return deref(doc, first).value;
  return media.schema ? sample(doc, media.schema, 0) : undefined;
}

/** Every example of a media type with its label (the example's summary or name); one built from the schema if none. */
export function examplesOf(doc: OpenApiDocument, media: MediaType | undefined): { label: string; value: unknown }[] {
  if (!media) return [];
  if (media.example !== undefined) return [{ label: '', value: media.example }];
  if (media.examples && Object.keys(media.examples).length > 0) {
    return Object.entries(media.examples).map(([name, example]) => {
      const resolved = deref(doc, example);
      return { label: resolved.summary ?? name, value: resolved.value };
    });
  }
  return media.schema ? [{ label: '', value: sample(doc, media.schema, 0) }] : [];
}

/** An example value for a schema: its own example, default or enum value, else one built from its type. */
export function sampleValue(doc: OpenApiDocument, schema: SchemaObject): unknown {
  return sample(doc, schema, 0);
}

const REASONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No Content',
  '400': 'Bad Request',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'Not Found',
  '409': 'Conflict',
  '413': 'Payload Too Large',
  '415': 'Unsupported Media Type',
  '422': 'Unprocessable Entity',
  '429': 'Too Many Requests',
  '500': 'Internal Server Error',
  '501': 'Not Implemented',
  '502': 'Bad Gateway',
  '503': 'Service Unavailable',
};

/** The HTTP reason phrase of a response key such as `201` (or `default`). */
export function reasonPhrase(status: string): string {
  return REASONS[status] ?? (status === 'default' ? 'Any other status' : 'Response');
}

function sample(doc: OpenApiDocument, input: SchemaObject, depth: number): unknown {
  const schema = normalize(doc, input);
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (depth > 6) return null;
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [key, sample(doc, value, depth + 1)]),
      );
    case 'array':
      return schema.items ? [sample(doc, schema.items, depth + 1)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return true;
    case 'string':
      return STRING_SAMPLES[schema.format ?? ''] ?? 'string';
    default:
      return null;
  }
}

const STRING_SAMPLES: Record<string, string> = {
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  'date-time': '2025-01-01T00:00:00.000Z',
  uri: 'https://example.com/webhook',
  email: 'dev@example.com',
};

export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? '';
}
