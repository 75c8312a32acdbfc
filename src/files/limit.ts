import { Transform, type TransformCallback } from 'node:stream';
import { Errors } from '../errors/index.ts';

export function fileTooLarge(limit: number) {
  return Errors.fileTooLarge(`A file has at most ${limit} bytes.`);
}

/**
 * Passes bytes through and fails with 413/129 as soon as more than `limit` have gone by, so a
 * body over the limit is neither stored nor read to its end (spec 8). The chunk that crosses
 * the limit is not passed on. `fileLimit` is the size the error names, when the bytes counted
 * are an encoding of the file (base64 in JSON) rather than the file itself.
 */
export class SizeLimit extends Transform {
  private seen = 0;

  constructor(
    private readonly limit: number,
    private readonly fileLimit = limit,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) return done(fileTooLarge(this.fileLimit));
    done(null, chunk);
  }
}
