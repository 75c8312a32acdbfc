import { ApiError, definitions } from '../errors/index.ts';
import type { ErrorDefinition } from '../errors/catalog.ts';

const BY_CODE = new Map<number, ErrorDefinition>(definitions().map((entry) => [entry.code, entry]));

/**
 * The error a cloud call failed with, as the API answers it: a `Parse.Error` thrown by the code
 * keeps its code (Parse Server's rule), with the catalog's status when the code is one of
 * Basalt's and 400 for a code of the app's own.
 */
export function cloudError(code: number, message: string): ApiError {
  const known = BY_CODE.get(code);
  return new ApiError(known ?? { code, name: 'CLOUD_CODE_ERROR', status: 400, message }, message);
}
