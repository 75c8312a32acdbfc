import type { ByteRange } from './port.ts';

const SINGLE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/**
 * A Range header against a file of `size` bytes (RFC 9110 14.1.2, 14.2): one range of bytes, as
 * `first-last`, `first-` or `-suffixLength`; the last byte is clamped to the end of the file.
 * null means "send the whole file": no usable header, another unit, or several ranges (which
 * would need a multipart answer; a server may ignore Range). 'unsatisfiable' is a range that
 * starts past the end, or any range of an empty file (416).
 */
export function parseRange(header: string, size: number): ByteRange | 'unsatisfiable' | null {
  const match = SINGLE.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
