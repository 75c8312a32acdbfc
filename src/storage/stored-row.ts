import type { StoredObject } from './port.ts';

const ENCODED = Symbol('encoded data');

interface Encoded {
  [ENCODED](): string | undefined;
}

/**
 * A stored object whose document arrives as JSON text and is parsed only when something reads
 * `data`. An object sent to a client as it is stored (rest/encoded.ts) is never parsed nor
 * encoded again: for a page of twenty small objects that is most of the work of a read.
 *
 * `data` is an own, enumerable getter, so a spread (`{ ...current, updatedAt }`) copies the parsed
 * document; reading it also retires the text, so a copy cannot be sent with its original's text.
 */
export function lazyStoredObject(objectId: string, createdAt: string, updatedAt: string, text: string, rperm: readonly string[], wperm: readonly string[]): StoredObject {
  let parsed: Readonly<Record<string, unknown>> | undefined;
  return {
    objectId,
    createdAt,
    updatedAt,
    rperm,
    wperm,
    get data() {
      return (parsed ??= JSON.parse(text) as Record<string, unknown>);
    },
    [ENCODED]: () => (parsed === undefined ? text : undefined),
  } as StoredObject & Encoded;
}

/**
 * The document's JSON text as storage returned it, while nothing has read the document: then it
 * is exactly what `data` would parse to. Undefined once `data` was read (it may have been copied
 * and changed) and for objects built in memory.
 */
export function encodedData(object: StoredObject): string | undefined {
  return (object as Partial<Encoded>)[ENCODED]?.();
}
