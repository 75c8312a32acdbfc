/** An answer of the API that was not a success: its `{code, error}` kept, and said in words. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly detail: string,
  ) {
    super(describe(status, code, detail));
  }
}

/** The API's own message is already a sentence; a few codes need the reason a person can act on. */
function describe(status: number, code: number, detail: string): string {
  switch (code) {
    case 903:
      return 'The email or password is not right.';
    case 119:
      return `Not allowed: ${detail}`;
    case 100:
      return 'The server cannot reach its database. Try again in a moment.';
    default:
      return detail || `The server answered ${status} (code ${code}).`;
  }
}

/** What a failure shows: an ApiFailure's words, or that the server could not be reached. */
export function failureText(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached.';
  return error instanceof Error ? error.message : String(error);
}
