import type { SessionWrites } from '../../auth/sessions.ts';
import { INTERNAL, writeCreate, writeDelete, type WriteTarget } from './pipeline.ts';

const SESSION = '_Session';

/**
 * The sessions Basalt writes on its own (sign-up, login, logout, expiry, a password change) go
 * through the pipeline as internal writes; the Session class has no observers (hooks.ts), so
 * what runs is the apply step.
 */
export function sessionWrites(app: WriteTarget): SessionWrites {
  return {
    async insert(session) {
      await writeCreate(app, INTERNAL, { className: SESSION, write: { object: session, relations: [] } });
    },
    delete(sessionId) {
      return writeDelete(app, INTERNAL, { className: SESSION, objectId: sessionId, write: null });
    },
  };
}
