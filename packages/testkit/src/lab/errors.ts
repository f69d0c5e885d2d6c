/** A lab helper was misused (an unknown option, a value out of range) or the lab could not do what it was asked. */
export class LabError extends Error {
  override name = 'LabError';
}

/** Throws when `options` has a key the function does not take, so that a misspelt option cannot pass silently. */
export function rejectUnknownOptions(what: string, options: object, allowed: readonly string[]): void {
  const unknown = Object.keys(options).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new LabError(`${what}: unknown option(s) ${unknown.join(', ')}`);
}
