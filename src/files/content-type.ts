import { Errors } from '../errors/index.ts';

// RFC 9110 media type: type "/" subtype, then parameters. Only visible ASCII and spaces, so the
// value can be sent back as a header and stored as S3 metadata unchanged.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[\\x20-\\x7e\\t]*)?$`);
const MAX_LENGTH = 255;

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

// The common types an upload without a Content-Type most likely has, as Parse Server guesses them
// from the name's extension. Anything else is application/octet-stream.
const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  json: 'application/json',
  xml: 'application/xml',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
};

/**
 * The content type to store: the one the client gave, else the one its extension suggests, else
 * application/octet-stream. A given value that is not a media type is refused with 126 rather
 * than served back to browsers as something else.
 */
export function contentTypeFor(given: string | undefined, fileName: string): string {
  const value = given?.trim();
  if (!value) {
    const dot = fileName.lastIndexOf('.');
    return (dot === -1 ? undefined : BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()]) ?? DEFAULT_CONTENT_TYPE;
  }
  if (value.length > MAX_LENGTH || !MEDIA_TYPE.test(value)) throw Errors.missingContentType(`The file's content type must be a media type such as image/png, of at most ${MAX_LENGTH} characters.`);
  return value;
}

// Types a browser runs scripts in when the file is opened directly.
const ACTIVE = /^(?:text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|[^/]+\/[^;]*\+xml)\s*(?:;|$)/i;

/**
 * Files are served from the API's own origin, so an uploaded HTML or SVG page must not run its
 * scripts there (it could read a user's session from the same origin's storage). Such files get
 * a sandboxing Content-Security-Policy; images, video and PDFs are left alone, since a sandbox
 * stops some browsers from showing a PDF at all.
 */
export function isActiveContent(contentType: string): boolean {
  return ACTIVE.test(contentType);
}
