import { hash, verify } from '@node-rs/argon2';

// argon2id with OWASP's recommended minimum (m=19 MiB, t=2, p=1): about 10 ms per hash here.
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
