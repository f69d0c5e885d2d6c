// A draft: what one fuzz case will send, before credentials and framing are added (cases.ts adds them).
import type fc from 'fast-check';

/**
 * `invalid`: the document refuses it, so the answer must be a 4xx in the error shape and nothing may be written.
 * `edge`: odd but allowed (or outside what the document can say): any documented answer below 500.
 * `valid`: a realistic request made of the environment's objects: it must pass validation.
 */
export type Kind = 'invalid' | 'edge' | 'valid';

export interface Draft {
  what: string;
  kind?: Kind;
  mode?: 'valid' | 'edge';
  fields?: string[];
  method?: string;
  path?: string;
  query?: Record<string, string | string[]>;
  querySuffix?: string;
  /** Body text (JSON unless the case says otherwise). */
  body?: string | Buffer;
  contentType?: string | null;
  headers?: [string, string][];
  /** `bearer`: the admin's access token even where an API key is the default. */
  auth?: 'default' | 'none' | 'custom' | 'bearer';
  version?: string;
  rawFraming?: boolean;
}

export type WeightedDraft = fc.WeightedArbitrary<Draft>;

/** Collects weighted generators in the order they are added. */
export function weightedDrafts() {
  const weighted: WeightedDraft[] = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<Draft>) => weighted.push({ weight, arbitrary });
  return { weighted, add };
}
