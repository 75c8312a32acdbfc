/**
 * What the job endpoints need of cloud code (src/cloud implements it; server.ts passes it in, so
 * src/rest does not import src/cloud).
 */
export interface JobSource {
  /** The job names the app's code defines, once its code has loaded; empty without code. */
  jobNames(applicationId: string): Promise<readonly string[]>;
  /**
   * Runs one job in the app's worker, without a time limit; resolves when the handler does,
   * rejects with its error. `onMessage` receives each `request.message(text)`.
   */
  runJob(applicationId: string, jobName: string, params: Record<string, unknown>, onMessage: (message: string) => void): Promise<void>;
}

/** A server without cloud code: no app has jobs. */
export const NO_JOBS: JobSource = {
  jobNames: async () => [],
  runJob: async (_applicationId, jobName) => {
    throw new Error(`no cloud code defines the job ${jobName}`);
  },
};
