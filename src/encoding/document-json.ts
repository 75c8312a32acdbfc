/**
 * A create checks the size of its document's JSON (rest/objects.ts) before the class is touched,
 * then the store writes that same JSON. The last text made is kept with its document, and the
 * insert that follows finds it there: one encoding instead of two. Only for documents that no
 * longer change once encoded, since a change is not seen; a document that was not the last one
 * encoded is simply encoded again.
 */
let lastDocument: object | null = null;
let lastText = '';

export function documentJson(data: Readonly<Record<string, unknown>>): string {
  if (data !== lastDocument) {
    lastText = JSON.stringify(data);
    lastDocument = data;
  }
  return lastText;
}
