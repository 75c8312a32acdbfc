/** How a stored file is shown: an image inline, text as text, anything else as a link only. */
export type PreviewKind = 'image' | 'text' | 'link';

/** SVG is not shown as an image but as its source (a +xml type): it may hold scripts, and text cannot run them. */
const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-ndjson|csv)\b|[a-z]+\/[^;]*\+(json|xml)\b)/;

export function previewKind(contentType: string): PreviewKind {
  const type = contentType.toLowerCase();
  if (type.startsWith('image/') && !type.startsWith('image/svg')) return 'image';
  if (TEXT_TYPES.test(type)) return 'text';
  return 'link';
}

/** Text previews read at most this much (one Range request), so a large log does not fill the page. */
export const TEXT_PREVIEW_BYTES = 64 * 1024;

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The name a person gave the file: the stored name without its 32 random hex digits and `_`. */
export function givenName(name: string): string {
  return /^[0-9a-f]{32}_/.test(name) ? name.slice(33) : name;
}
