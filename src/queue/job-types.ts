import type { JobTypes } from './types.ts';
import { mailJob } from './jobs/mail.ts';
import { noopJob } from './jobs/noop.ts';

/** Every job type the server runs, by the name stored in `_Jobs.type`. */
export const JOB_TYPES: JobTypes = {
  mail: mailJob,
  noop: noopJob,
};
