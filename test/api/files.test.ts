import { eachBackend } from '../helpers/each-backend.ts';
import { diskTarget } from '../helpers/files.ts';
import { fileScenarios } from '../helpers/file-scenarios.ts';
import { fileListScenarios } from '../helpers/file-list-scenarios.ts';

/**
 * Spec 4.6 and 8, decisions.md "Files", on the local disk store: the servers `npm test` starts
 * keep their files under their data directory. files-s3.test.ts runs the same scenarios on S3.
 */
eachBackend('files on disk', (target) => fileScenarios(() => diskTarget(target)));
eachBackend('listing files on disk', (target) => fileListScenarios(() => diskTarget(target)));
