/**
 * Decodes base64 (`'base64'`, with its `=` padding) or base64url (`'base64url'`, unpadded) only in its one canonical
 * form: `undefined` for anything else. Node's decoder is lenient: it skips characters outside the alphabet, takes
 * padding or none, and drops the unused low bits of the last character, so many strings decode to the same bytes.
 * A credential that can be written several ways is malleable: a changed token that still verifies defeats a
 * deny-list or a log search keyed on its text. Re-encoding the bytes and comparing refuses every such variant.
 */
export function decodeCanonical(value: string, encoding: 'base64' | 'base64url'): Buffer | undefined {
  const bytes = Buffer.from(value, encoding);
  return bytes.toString(encoding) === value ? bytes : undefined;
}
