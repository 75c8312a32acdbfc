import { CATALOG, type ErrorDefinition, type ErrorKey } from './catalog.ts';

/** The only error type that reaches a client; anything else is rendered as code 1. */
export class ApiError extends Error {
  readonly code: number;
  readonly status: number;

  constructor(definition: ErrorDefinition, message?: string, status?: number) {
    super(message ?? definition.message);
    this.name = definition.name;
    this.code = definition.code;
    this.status = status ?? definition.status;
  }

  toJSON(): { code: number; error: string } {
    return { code: this.code, error: this.message };
  }
}

type Factories = { [K in ErrorKey]: (message?: string) => ApiError };

/** `throw Errors.invalidKeyName('bad key: x')` — one factory per catalog entry. */
export const Errors = Object.fromEntries(
  Object.entries(CATALOG).map(([key, definition]) => [key, (message?: string) => new ApiError(definition, message)]),
) as Factories;

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

export { CATALOG, definitions } from './catalog.ts';
