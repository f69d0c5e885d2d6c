import { exampleOf, type OpenApiDocument, type Operation, sampleValue } from './openapi';

/** The credential header a request sample uses: the first security scheme the operation accepts. */
function authHeader(doc: OpenApiDocument, operation: Operation): string | undefined {
  const requirements = operation.operation.security ?? doc.security ?? [];
  const schemeName = requirements.flatMap((r) => Object.keys(r))[0];
  const scheme = schemeName ? doc.components?.securitySchemes?.[schemeName] : undefined;
  if (!scheme) return undefined;
  if (scheme.type === 'apiKey' && scheme.in === 'header') return `${scheme.name}: $MOUNTAIN_API_KEY`;
  if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') {
    return 'Authorization: Bearer $MOUNTAIN_ACCESS_TOKEN';
  }
  return undefined;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A runnable curl command for the operation, built from its parameters and request example. */
export function curlSample(doc: OpenApiDocument, operation: Operation): string {
  const base = doc.servers?.[0]?.url ?? '';
  let path = operation.path;
  const query: string[] = [];
  for (const parameter of operation.parameters) {
    // Required parameters get a value (their example, else one built from the schema); optional ones only
    // appear when they have an example or a default.
    const value =
      parameter.example ??
      parameter.schema?.example ??
      parameter.schema?.default ??
      (parameter.required && parameter.schema ? sampleValue(doc, parameter.schema) : undefined);
    if (parameter.in === 'path')
      path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value ?? parameter.name)));
    if (parameter.in === 'query' && value !== undefined) {
      query.push(`${encodeURIComponent(parameter.name)}=${encodeURIComponent(String(value))}`);
    }
  }
  const url = `${base}${path}${query.length ? `?${query.join('&')}` : ''}`;
  const lines = [`curl -X ${operation.method.toUpperCase()} ${shellQuote(url)}`];
  // Double quotes so the shell expands the variable.
  const auth = authHeader(doc, operation);
  if (auth) lines.push(`-H "${auth}"`);
  const media = operation.operation.requestBody?.content?.['application/json'];
  if (media) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(exampleOf(doc, media), null, 2))}`);
  }
  return lines.join(' \\\n  ');
}
