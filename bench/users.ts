/**
 * The user suite: logging in, reading the current user, and a query whose answer the caller's
 * ACLs decide, against the same query with the master key ("users" issue). Then the Parse SDKs'
 * paths to users (/1/classes/_User) beside the dedicated ones (/1/users): the same code serves
 * both, so they must measure the same within noise.
 */
import { verify } from '@node-rs/argon2';
import type { Row, Target } from './report.ts';
import { api, createClass, createIndex, expectPage, findPath, MASTER_HEADERS, movingBounds, nthScore, PAGE, raiseLimits, RANGE_SIZE, REST_HEADERS, seedAndCheck, type SuiteContext } from './queries.ts';
import { READABLE_EVERY, secretSet } from './seed.ts';
import { WORKLOADS, type Request } from './workloads.ts';

const USER = { username: 'bench-user', password: 'bench-user-password-1' };
export const SECRETS = 100_000;
/** Sequential logins and in-process hash checks timed to report what one login costs. */
const SINGLE_LOGINS = 10;
const HASH_CHECKS = 20;

export const USER_WORKLOADS = {
  login: 'login (GET /1/login)',
  getById: 'get-by-id, just before /users/me',
  me: 'GET /1/users/me',
  asUser: `query as the user (${100 / READABLE_EVERY}% readable)`,
  asMaster: 'same query, master key',
  asUserMoving: 'query as the user, a new bound each request',
  findUsers: 'GET /1/users?where=…',
  findClasses: 'GET /1/classes/_User?where=…',
  updateUsers: 'PUT /1/users/<own id>',
  updateClasses: 'PUT /1/classes/_User/<own id>',
};

/** The SDK-path rows and the dedicated ones they are held against. */
const PATH_PAIRS = [
  { label: 'query', dedicated: USER_WORKLOADS.findUsers, sdk: USER_WORKLOADS.findClasses },
  { label: 'PUT', dedicated: USER_WORKLOADS.updateUsers, sdk: USER_WORKLOADS.updateClasses },
] as const;

/** The get-by-id row of the http suite, which /users/me is held against when the suite ran no get-by-id of its own. */
export const GET_BY_ID = 'get-by-id';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function runUsers(ctx: SuiteContext): Promise<string[]> {
  const { url } = ctx;
  await raiseLimits(url);
  const user = await api(url, 'POST', '/1/users', REST_HEADERS, USER);
  const userId = String(user.objectId);
  const asUser = { ...REST_HEADERS, 'x-svc-session-token': String(user.sessionToken) };

  const secrets = secretSet(userId);
  await createClass(url, 'Secret', { score: { type: 'Number' }, name: { type: 'String' } });
  await seedAndCheck(ctx, secrets, 0, SECRETS, () => createIndex(url, 'Secret', 'byScore', { score: -1 }));

  // The argon2id parameters are the ones in the stored hash, so timing a check of it here
  // measures the server's cost per login without reaching into its code.
  const stored = (await ctx.seeder.document('_User', userId))?._hashed_password;
  if (typeof stored !== 'string') throw new Error('the bench user has no stored password hash');
  const hashMs: number[] = [];
  for (let n = 0; n < HASH_CHECKS; n++) {
    const started = performance.now();
    if (!(await verify(stored, USER.password))) throw new Error('the stored hash does not verify the bench password');
    hashMs.push(performance.now() - started);
  }
  const loginPath = `/1/login?${new URLSearchParams(USER).toString()}`;
  const loginMs: number[] = [];
  for (let n = 0; n < SINGLE_LOGINS; n++) {
    const started = performance.now();
    await api(url, 'GET', loginPath, REST_HEADERS);
    loginMs.push(performance.now() - started);
  }
  const params = /\$argon2id\$v=\d+\$([^$]+)\$/.exec(stored)?.[1] ?? 'unknown parameters';
  const notes = [
    `${ctx.server}: one argon2id check (${params}) takes ${median(hashMs).toFixed(1)} ms in the bench process (median of ${HASH_CHECKS}); ` +
      `one login over HTTP, one at a time, ${median(loginMs).toFixed(1)} ms (median of ${SINGLE_LOGINS}).`,
  ];
  await ctx.measure(USER_WORKLOADS.login, [{ method: 'GET', path: loginPath, headers: REST_HEADERS }]);
  // Measured again here, just before /users/me: by now the server holds a million more rows and
  // has run for minutes, and the two are compared in the same state.
  const getById = WORKLOADS.find((w) => w.id === GET_BY_ID)!;
  await ctx.measure(USER_WORKLOADS.getById, await getById.prepare(url, ctx.connections));
  await ctx.measure(USER_WORKLOADS.me, [{ method: 'GET', path: '/1/users/me', headers: asUser }]);

  const x = await nthScore(url, 'Secret', RANGE_SIZE, MASTER_HEADERS);
  const query = findPath('Secret', { where: { score: { $gte: x } }, order: '-score', limit: PAGE });
  await expectPage(url, query, asUser, (body) => {
    const readable = (body.results as { ACL?: Record<string, unknown> }[]).every((r) => r.ACL && userId in r.ACL);
    return readable ? undefined : 'the user was shown an object it may not read';
  });
  await expectPage(url, query, MASTER_HEADERS);
  notes.push(`${ctx.server}: the user query is \`score ≥ ${x.toLocaleString('en-US')}\` (the top ${RANGE_SIZE.toLocaleString('en-US')} of ${SECRETS.toLocaleString('en-US')}), order \`-score\`, limit ${PAGE}; about ${RANGE_SIZE / READABLE_EVERY} of those ${RANGE_SIZE.toLocaleString('en-US')} are readable by the user.`);
  await ctx.measure(USER_WORKLOADS.asUser, [{ method: 'GET', path: query, headers: asUser }]);
  await ctx.measure(USER_WORKLOADS.asMaster, [{ method: 'GET', path: query, headers: MASTER_HEADERS }]);
  await ctx.measure(USER_WORKLOADS.asUserMoving, await movingBounds(ctx, 'Secret', asUser, 2 * PAGE * READABLE_EVERY));
  notes.push(...(await measurePaths(ctx)));
  return notes;
}

/**
 * The same query and update through /1/users and /1/classes/_User, one after the other. Each
 * connection updates a user of its own with that user's token, so the rows measure the update
 * path rather than waiting on one row's lock.
 */
async function measurePaths(ctx: SuiteContext): Promise<string[]> {
  const { url } = ctx;
  const team = `bench-team-${Date.now()}`;
  const members: { objectId: string; headers: Record<string, string> }[] = [];
  // Enough for a full page of the query whatever BENCH_CONNECTIONS says.
  const count = Math.max(ctx.connections, PAGE + 8);
  for (let n = 0; n < count; n++) {
    const signedUp = await api(url, 'POST', '/1/users', REST_HEADERS, { username: `${team}-${n}`, password: USER.password, team, rank: n });
    members.push({ objectId: String(signedUp.objectId), headers: { ...REST_HEADERS, 'x-svc-session-token': String(signedUp.sessionToken) } });
  }
  const search = `where=${encodeURIComponent(JSON.stringify({ team, rank: { $gte: 8 } }))}&order=rank&limit=${PAGE}`;
  const asMember = members[0]!.headers;
  for (const path of [`/1/users?${search}`, `/1/classes/_User?${search}`]) {
    await expectPage(url, path, asMember, (answer) => ((answer.results as { rank: number }[]).every((user, i) => user.rank === 8 + i) ? undefined : 'the user query found the wrong users'));
  }
  await ctx.measure(USER_WORKLOADS.findUsers, [{ method: 'GET', path: `/1/users?${search}`, headers: asMember }]);
  await ctx.measure(USER_WORKLOADS.findClasses, [{ method: 'GET', path: `/1/classes/_User?${search}`, headers: asMember }]);
  // The updates come last: each leaves a dead row version behind, and on PostgreSQL the query
  // would read those until autovacuum ran, at a cost that depends on when it did.
  const body = JSON.stringify({ visits: { __op: 'Increment', amount: 1 }, lastSeen: 'bench' });
  const updates = (base: string) => {
    const byConnection = members.map((member): Request[] => [{ method: 'PUT', path: `${base}/${member.objectId}`, headers: member.headers, body }]);
    return { requests: byConnection[0]!, byConnection };
  };
  await ctx.measure(USER_WORKLOADS.updateUsers, updates('/1/users'));
  await ctx.measure(USER_WORKLOADS.updateClasses, updates('/1/classes/_User'));
  return [
    `${ctx.server}: the path rows: ${count} users, each connection updating its own with its own token (\`visits\` Increment and a String); ` +
      `the query is \`team = …, rank ≥ 8\`, order \`rank\`, limit ${PAGE}, as one of them (the users are readable by all).`,
  ];
}

/**
 * The goals: the user's query p50 within 1.5× of the master key's; /users/me at least
 * 0.9× get-by-id req/s; the SDK paths at least 0.9× the dedicated ones (they run the same code).
 */
export function userTargets(rows: readonly Row[], httpRows: readonly Row[], servers: readonly string[]): Target[] {
  const targets: Target[] = [];
  for (const server of servers) {
    const row = (from: readonly Row[], workload: string) => from.find((r) => r.server === server && r.workload === workload);
    const user = row(rows, USER_WORKLOADS.asUser);
    const master = row(rows, USER_WORKLOADS.asMaster);
    targets.push({
      label: `query p50, user ÷ master key, ${server}`,
      measured: user && master ? user.p50Ms / master.p50Ms : undefined,
      byCpu: user && master ? user.cpuUsPerRequest / master.cpuUsPerRequest : undefined,
      goal: 1.5,
      kind: 'ratio-at-most',
    });
  }
  for (const server of servers) {
    for (const pair of PATH_PAIRS) {
      const dedicated = rows.find((r) => r.server === server && r.workload === pair.dedicated);
      const sdk = rows.find((r) => r.server === server && r.workload === pair.sdk);
      targets.push({
        label: `${pair.label} req/s, /1/classes/_User ÷ /1/users, ${server}`,
        measured: dedicated && sdk ? sdk.reqPerSec / dedicated.reqPerSec : undefined,
        byCpu: dedicated && sdk && sdk.cpuUsPerRequest ? dedicated.cpuUsPerRequest / sdk.cpuUsPerRequest : undefined,
        goal: 0.9,
        kind: 'ratio-at-least',
      });
    }
  }
  for (const server of servers) {
    const me = rows.find((r) => r.server === server && r.workload === USER_WORKLOADS.me);
    const get = rows.find((r) => r.server === server && r.workload === USER_WORKLOADS.getById) ?? httpRows.find((r) => r.server === server && r.workload === GET_BY_ID);
    targets.push({
      label: `/users/me ÷ get-by-id req/s, ${server}`,
      measured: me && get ? me.reqPerSec / get.reqPerSec : undefined,
      byCpu: me && get && me.cpuUsPerRequest ? get.cpuUsPerRequest / me.cpuUsPerRequest : undefined,
      goal: 0.9,
      kind: 'ratio-at-least',
    });
  }
  return targets;
}
