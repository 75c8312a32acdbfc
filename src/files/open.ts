import { join } from 'node:path';
import type { Config } from '../config/schema.ts';
import { DiskFileStorage } from './disk.ts';
import type { FileStorage } from './port.ts';

/**
 * The file store the configuration names. The AWS SDK is imported only for `s3`: it costs about
 * 130 ms and 20 MB of memory at start (measured on the reference machine), which a server on the
 * local disk has no reason to pay.
 */
export async function openFileStorage(config: Config): Promise<FileStorage> {
  switch (config.filesStorage) {
    case 'disk':
      return new DiskFileStorage(config.filesDir ?? join(config.dataDir, 'files'));
    case 's3': {
      if (!config.s3Bucket) throw new Error('--files-storage s3 needs --s3-bucket (BASALT_S3_BUCKET).');
      if (Boolean(config.s3AccessKeyId) !== Boolean(config.s3SecretAccessKey)) throw new Error('--s3-access-key-id and --s3-secret-access-key go together: give both or neither.');
      const { S3FileStorage } = await import('./s3.ts');
      return new S3FileStorage({
        bucket: config.s3Bucket,
        region: config.s3Region,
        ...(config.s3Endpoint ? { endpoint: config.s3Endpoint } : {}),
        ...(config.s3AccessKeyId && config.s3SecretAccessKey ? { credentials: { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey } } : {}),
        forcePathStyle: config.s3ForcePathStyle,
        prefix: config.s3Prefix ?? '',
      });
    }
    default:
      throw new Error(`--files-storage must be disk or s3, got "${config.filesStorage}".`);
  }
}
