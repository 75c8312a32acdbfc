// The id generators live in src/storage/ids.ts (below auth and storage, which use them); this
// name is kept for code written against the old place.
export { isoTimestamp, newHex, newKey, newObjectId, randomAlphanumerics } from '../storage/ids.ts';
