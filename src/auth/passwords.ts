// argon2id with OWASP's recommended minimum (m=19 MiB, t=2, p=1): about 10 ms per hash here.
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

// Both libraries load on first use: a server that hashes nothing (most restarts) keeps the memory.
const argon2 = () => import('@node-rs/argon2');
const bcrypt = async () => (await import('bcryptjs')).default;

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password, OPTIONS);
}

/** Verifies against an argon2 hash, or a bcrypt hash imported from another system (`$2a$`, `$2b$`, `$2y$`). */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    if (isBcrypt(stored)) return await (await bcrypt()).compare(password, stored);
    return await (await argon2()).verify(stored, password);
  } catch {
    return false;
  }
}

/** Imported bcrypt hashes are replaced by argon2id ones at the next successful login. */
export function needsRehash(stored: string): boolean {
  return isBcrypt(stored);
}

function isBcrypt(stored: string): boolean {
  return /^\$2[aby]\$\d\d\$/.test(stored);
}
