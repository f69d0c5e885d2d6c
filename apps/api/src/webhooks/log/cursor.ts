import { validationError } from '#api/errors/ApiError.ts';

/** A position in a list ordered newest first: the time and id of the last item of the previous page. */
export interface Cursor {
  at: string;
  id: string;
}

/** Opaque to clients: base64url of `<ISO time, to the microsecond>|<id>`. */
export function encodeCursor(at: Date | string, id: string | number): string {
  return Buffer.from(`${typeof at === 'string' ? at : at.toISOString()}|${id}`).toString('base64url');
}

/** 400 naming `query.cursor` when it is not one this API gave. */
export function decodeCursor(cursor: string | undefined): Cursor | undefined {
  if (cursor === undefined) return undefined;
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (
    !at ||
    !id ||
    rest.length > 0 ||
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/.test(at) ||
    !/^[0-9a-f-]{1,36}$/.test(id)
  ) {
    throw validationError([{ field: 'query.cursor', message: 'is not a cursor this API answered' }]);
  }
  return { at, id };
}
