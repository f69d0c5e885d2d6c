import { validationError } from '#api/errors/ApiError.ts';

/** A position in a list ordered newest first: the time and id of the last item of the previous page. */
export interface Cursor {
  at: string;
  id: string;
}

/** The ids of each list: an attempt's (a bigint, kept within safe integers) or a message's (a UUID). */
export const CURSOR_IDS = {
  attempt: /^\d{1,15}$/,
  message: /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/,
};

/** Opaque to clients: base64url of `<ISO time, to the microsecond>|<id>`. */
export function encodeCursor(at: Date | string, id: string | number): string {
  return Buffer.from(`${typeof at === 'string' ? at : at.toISOString()}|${id}`).toString('base64url');
}

/**
 * 400 naming `querystring.cursor` when it is not one this API gave for this list: one of the other list, or a forged
 * one whose time or id the database would refuse (a 13th month, the year 0000, an id out of range).
 */
export function decodeCursor(cursor: string | undefined, idForm: RegExp): Cursor | undefined {
  if (cursor === undefined) return undefined;
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const time = at && /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,6})?Z$/.exec(at);
  // The same second back from a Date: no day, hour or minute out of range, no year 0000.
  const real = time && time[1] !== undefined && !time[1].startsWith('0000') && sameSecond(time[1]);
  if (!real || !id || rest.length > 0 || !idForm.test(id)) {
    throw validationError([{ field: 'querystring.cursor', message: 'is not a cursor this API answered' }]);
  }
  return { at: at as string, id };
}

function sameSecond(text: string): boolean {
  const ms = Date.parse(`${text}Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === text;
}
