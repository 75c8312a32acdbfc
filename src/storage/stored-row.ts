import type { StoredObject } from './port.ts';

/**
 * A stored object read for a client, whose document arrives as JSON text and is parsed only when
 * something reads `data`. An object sent as it is stored (rest/encoded.ts) is never parsed nor
 * encoded again: for a page of twenty small objects that is most of the work of a read.
 *
 * A class, not an object with a getter of its own: V8 gives such objects a shape each, which
 * cost as much as the parse saved. `data` therefore lives on the prototype, and a spread
 * (`{ ...object }`) does not copy it; reads hand these objects out, and writes, which build new
 * objects from the current one, read it eagerly (storage/sql-store.ts, `update`).
 */
export class StoredRow implements StoredObject {
  #text: string | undefined;
  #data: Readonly<Record<string, unknown>> | undefined;

  constructor(
    readonly objectId: string,
    readonly createdAt: string,
    readonly updatedAt: string,
    text: string,
    readonly rperm: readonly string[],
    readonly wperm: readonly string[],
  ) {
    this.#text = text;
  }

  get data(): Readonly<Record<string, unknown>> {
    if (this.#data === undefined) {
      this.#data = JSON.parse(this.#text!) as Record<string, unknown>;
      // Whoever read the document may change it: the text no longer stands for it.
      this.#text = undefined;
    }
    return this.#data;
  }

  /** The document's JSON text while nothing has read the document. */
  encoded(): string | undefined {
    return this.#text;
  }
}

/** The document's JSON text as storage returned it, for an object whose document nothing has read. */
export function encodedData(object: StoredObject): string | undefined {
  return object instanceof StoredRow ? object.encoded() : undefined;
}
