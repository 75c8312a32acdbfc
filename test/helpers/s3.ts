import crypto from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** What s3rver accepts: it checks every request's signature against these credentials. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * A local S3-compatible server for the tests (the `s3rver` package, in this process, keeping
 * objects in a temporary directory). Basalt talks to it through the AWS SDK exactly as it would
 * to S3, signatures included; the tests read the bucket back through the same SDK.
 */
export class TestS3 {
  readonly bucket = 'basalt-test';
  private readonly client: S3Client;

  private constructor(
    private readonly server: S3rver,
    private readonly directory: string,
    readonly endpoint: string,
  ) {
    this.client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: CREDENTIALS });
  }

  static async start(): Promise<TestS3> {
    allowSingleDes();
    const directory = mkdtempSync(join(tmpdir(), 'basalt-s3-'));
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'basalt-test' }] });
    const { port } = await server.run();
    return new TestS3(server, directory, `http://127.0.0.1:${port}`);
  }

  /** The environment that points a Basalt server at this bucket, under `prefix`. */
  env(prefix = ''): Record<string, string> {
    return {
      BASALT_FILES_STORAGE: 's3',
      BASALT_S3_BUCKET: this.bucket,
      BASALT_S3_ENDPOINT: this.endpoint,
      BASALT_S3_FORCE_PATH_STYLE: 'true',
      BASALT_S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      BASALT_S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      ...(prefix ? { BASALT_S3_PREFIX: prefix } : {}),
    };
  }

  /** An object's bytes and content type, or null when the key does not exist. */
  async object(key: string): Promise<{ bytes: Buffer; contentType: string | undefined } | null> {
    try {
      const found = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return { bytes: Buffer.from(await found.Body!.transformToByteArray()), contentType: found.ContentType };
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return null;
      throw error;
    }
  }

  /** Writes an object straight into the bucket, as another program would. */
  async put(key: string, bytes: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes }));
  }

  /** Every key that starts with `prefix`. */
  async keys(prefix: string): Promise<string[]> {
    const listed = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix }));
    return (listed.Contents ?? []).map((item) => item.Key!).sort();
  }

  async close(): Promise<void> {
    this.client.destroy();
    await this.server.close();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/**
 * s3rver makes the continuation token of a truncated ListObjectsV2 with single DES, which the
 * OpenSSL 3 of Node 20 refuses without its legacy provider (the listing then answers 500). Triple
 * DES with its three keys equal is single DES, and the default provider has it: the calls that
 * ask for 'des' (only s3rver's, in the test process) are given that.
 */
function allowSingleDes(): void {
  const patched = crypto as unknown as { createCipheriv: Function; createDecipheriv: Function; desPatched?: boolean };
  if (patched.desPatched) return;
  patched.desPatched = true;
  for (const name of ['createCipheriv', 'createDecipheriv'] as const) {
    const original = patched[name].bind(crypto);
    patched[name] = (algorithm: string, key: Buffer, ...rest: unknown[]) =>
      algorithm === 'des' && key.length === 8 ? original('des-ede3-cbc', Buffer.concat([key, key, key]), ...rest) : original(algorithm, key, ...rest);
  }
}
