import fc from 'fast-check';
import { deepJson, hostileKey, hostileNumber, hostileString, hostileValue, jsonText, MALFORMED_BODIES, Obj, obj, type Json } from './json.ts';
import { FIELDS, hostileWhere, plausibleWhere } from './queries.ts';

/** What the fuzzer knows of the app it attacks: its keys and a few objects and users. */
export interface World {
  readonly backend: 'sqlite' | 'postgres';
  readonly appId: string;
  readonly restKey: string;
  readonly masterKey: string;
  readonly javascriptKey: string;
  /** A class of a few objects with fields of every type, open to the REST key. */
  readonly fuzzClass: string;
  /** The canary's class: read-only to everyone but the master key, never given to the schema family. */
  readonly canaryClass: string;
  readonly objectIds: readonly string[];
  readonly canaryUserId: string;
  readonly fuzzUserId: string;
  readonly fuzzUserToken: string;
}

/** One request as sent: the path already encoded, the body as raw text. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}


/** Headers fetch can send: no CR, LF or NUL, code points up to U+00FF. */
export function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

/** A path segment as a client would percent-encode it (a lone surrogate becomes U+FFFD). */
export function segment(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

const rawSegment = fc.oneof(
  { weight: 4, arbitrary: hostileString.map(segment) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%00', '%2F', '%2e%2e', '..', '.', '%ff%fe', 'a%20b', '%C0%AF', '%u0041', 'x'.repeat(1_200)) },
);

export function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

export class Families {
  readonly className: fc.Arbitrary<string>;
  readonly objectId: fc.Arbitrary<string>;
  readonly value: fc.Arbitrary<Json>;
  readonly where: fc.Arbitrary<Json>;
  readonly fieldName: fc.Arbitrary<string>;
  readonly plausibleWhere: fc.Arbitrary<Json>;

  constructor(readonly world: World) {
    this.className = fc.oneof(
      { weight: 6, arbitrary: fc.constant(world.fuzzClass) },
      { weight: 1, arbitrary: fc.constant(world.canaryClass) },
      { weight: 2, arbitrary: fc.constantFrom('_User', '_Session', '_Role', '_Installation', '_Join', '_SCHEMA', '_Idempotency', '_Foo', 'Fuzz_Other', 'a', 'A'.repeat(200)) },
      { weight: 2, arbitrary: hostileString },
    );
    this.objectId = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...world.objectIds, world.canaryUserId, world.fuzzUserId) },
      { weight: 2, arbitrary: hostileString },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 10, maxLength: 10 }) },
    );
    // Mostly the fields the fuzz class has, so that a request gets past the name checks to the
    // value it carries; now and then a dotted path or a hostile key.
    this.fieldName = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...FIELDS) },
      { weight: 1, arbitrary: fc.constantFrom('tags.0', 'meta.a', 'meta.a.b', 'owner.name', 'place.latitude') },
      { weight: 2, arbitrary: hostileKey },
    );
    this.value = hostileValue(this.className, this.objectId);
    const value = this.value;
    const className = this.className;
    const fieldName = this.fieldName;
    this.where = hostileWhere(this.fieldName, this.className, this.value);
    this.plausibleWhere = plausibleWhere(world, this.value);
  }

  /** The app's keys as clients send them, mostly right, sometimes wrong, missing or doubled. */
  keys(): fc.Arbitrary<Record<string, string>> {
    const w = this.world;
    const hostileHeader = hostileString.map(headerSafe);
    return fc.oneof(
      { weight: 10, arbitrary: fc.constant({ 'X-Svc-Application-Id': w.appId, 'X-Svc-REST-API-Key': w.restKey }) },
      { weight: 2, arbitrary: fc.constant({ 'X-Parse-Application-Id': w.appId, 'X-Parse-REST-API-Key': w.restKey }) },
      { weight: 1, arbitrary: fc.constant({ 'X-Parse-Application-Id': w.appId, 'X-Parse-Javascript-Key': w.javascriptKey }) },
      { weight: 1, arbitrary: fc.constant({ 'X-Svc-Application-Id': w.appId }) },
      { weight: 1, arbitrary: fc.constant({}) },
      {
        weight: 2,
        arbitrary: fc.record(
          {
            'X-Svc-Application-Id': fc.oneof(fc.constant(w.appId), hostileHeader),
            'X-Parse-Application-Id': hostileHeader,
            'X-Svc-REST-API-Key': fc.oneof(fc.constant(w.restKey), hostileHeader),
            'X-Svc-Master-Key': hostileHeader,
            'X-Parse-Master-Key': fc.constant(`${w.masterKey}x`),
            'X-Svc-Client-Key': hostileHeader,
            'X-Svc-Session-Token': hostileHeader,
            'X-Svc-Revocable-Session': fc.constantFrom('1', '0', 'true', 'yes', ''),
            'X-Svc-Installation-Id': hostileHeader,
            'X-Svc-Request-Id': hostileHeader,
            'X-Svc-Client-Version': hostileHeader,
            Authorization: fc.oneof(hostileHeader, hostileString.map((text) => `Basic ${Buffer.from(text).toString('base64')}`)),
          },
          { requiredKeys: [] },
        ),
      },
    );
  }

  /** The keys, plus the fuzz user's session token or a made-up one now and then. */
  keysAndSession(): fc.Arbitrary<Record<string, string>> {
    const session = fc.option(fc.oneof(fc.constant(this.world.fuzzUserToken), hostileString.map(headerSafe), fc.constantFrom('r:00000000000000000000000000000000', 'r:', 'x'.repeat(8_000))), { freq: 3 });
    return fc.tuple(this.keys(), session).map(([keys, token]) => (token === null ? keys : { ...keys, 'X-Svc-Session-Token': token }));
  }

  /** A JSON body (mostly an object of hostile fields), or malformed text. */
  body(fields: fc.Arbitrary<Json> = this.objectBody()): fc.Arbitrary<string> {
    return fc.oneof(
      { weight: 10, arbitrary: fields.map(jsonText) },
      { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_BODIES) },
      { weight: 1, arbitrary: deepJson.map((raw) => `{"a":${raw.text}}`) },
      { weight: 1, arbitrary: this.value.map(jsonText) },
    );
  }

  objectBody(extra: fc.Arbitrary<readonly (readonly [string, Json])[]> = fc.constant([])): fc.Arbitrary<Json> {
    return fc.tuple(fc.array(fc.tuple(this.fieldName, this.value), { maxLength: 6 }), extra).map(([entries, more]) => new Obj([...entries, ...more]));
  }

  contentType(): fc.Arbitrary<string | undefined> {
    return fc.oneof(
      { weight: 10, arbitrary: fc.constant('application/json') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          undefined, 'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1',
          'application/json; charset=utf-16', 'application/octet-stream', '*/*', 'application/vnd.api+json', '', ';', 'application/json;;;', 'text/html',
        ),
      },
    );
  }

  /** A request with a body, its headers made of keys, a content type and the body. */
  withBody(method: string, path: string, body: fc.Arbitrary<string>, keys = this.keysAndSession()): fc.Arbitrary<FuzzRequest> {
    return fc.tuple(keys, this.contentType(), body).map(([headers, type, text]) => ({ method, path, headers: type === undefined ? headers : { ...headers, 'Content-Type': type }, body: text }));
  }

  findParams(): fc.Arbitrary<Record<string, string | undefined>> {
    const fieldList = fc.array(fc.oneof(this.fieldName, this.fieldName.map((name) => `-${name}`)), { maxLength: 4 }).map((names) => names.join(','));
    const count = fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 20 }).map(String) },
      { weight: 1, arbitrary: fc.integer({ min: -5, max: 2_000 }).map(String) },
      { weight: 1, arbitrary: fc.constantFrom('-1', '1e9', '0.5', '', '99999999999999999999', 'NaN', '0x10', ' 5', '5 ') },
      { weight: 1, arbitrary: hostileString },
    );
    const validList = fc.array(fc.constantFrom(...FIELDS.filter((name) => name !== 'ACL')), { maxLength: 3 }).map((names) => names.join(','));
    return fc.record(
      {
        where: fc.oneof({ weight: 8, arbitrary: this.where.map(jsonText) }, { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_BODIES) }, { weight: 1, arbitrary: hostileString }),
        order: fc.oneof({ weight: 3, arbitrary: validList }, { weight: 2, arbitrary: fieldList }, { weight: 1, arbitrary: hostileString }, { weight: 1, arbitrary: fc.constantFrom('$score', '-$score', 'score,-score,score', ',', '-') }),
        keys: fc.oneof({ weight: 3, arbitrary: validList }, { weight: 1, arbitrary: fieldList }, { weight: 1, arbitrary: hostileString }),
        excludeKeys: fieldList,
        include: fc.oneof({ weight: 3, arbitrary: validList }, { weight: 1, arbitrary: fieldList }, { weight: 1, arbitrary: fc.constantFrom('*', 'owner.owner.owner', 'owner,owner.owner', '*.*') }),
        limit: count,
        skip: count,
        count: fc.constantFrom('1', '0', 'true', 'false', 'x', ''),
        readPreference: hostileString,
        extra: hostileString,
      },
      { requiredKeys: [] },
    );
  }

  // --- endpoint families -------------------------------------------------------------------

  objects(): fc.Arbitrary<FuzzRequest> {
    const path = fc.tuple(this.className, this.objectId).map(([cls, id]) => `/1/classes/${segment(cls)}/${segment(id)}`);
    const classPath = this.className.map((cls) => `/1/classes/${segment(cls)}`);
    return fc.oneof(
      fc.tuple(classPath, this.findParams(), this.keysAndSession()).map(([base, params, headers]) => ({ method: 'GET', path: base + query(params), headers })),
      // One hostile thing at a time: a where alone, on the fuzz class, with the right keys.
      fc.tuple(this.where, this.keys()).map(([where, headers]) => ({ method: 'GET', path: `/1/classes/${this.world.fuzzClass}${query({ where: jsonText(where) })}`, headers })),
      fc.tuple(this.plausibleWhere, fc.option(fc.constantFrom('1', '0')), fc.option(fc.constantFrom('name', '-score', 'when,-name', 'createdAt'))).map(([where, count, order]) => ({
        method: 'GET',
        path: `/1/classes/${this.world.fuzzClass}${query({ where: jsonText(where), count: count ?? undefined, order: order ?? undefined })}`,
        headers: { 'X-Svc-Application-Id': this.world.appId, 'X-Svc-REST-API-Key': this.world.restKey },
      })),
      fc.tuple(this.plausibleWhere, this.objectBody()).map(([where, fields]) => ({
        method: 'POST',
        path: `/1/classes/${this.world.fuzzClass}`,
        headers: { 'Content-Type': 'text/plain' },
        body: jsonText(new Obj([['_method', 'GET'], ['_ApplicationId', this.world.appId], ['_JavaScriptKey', this.world.javascriptKey], ['where', where], ...(fields instanceof Obj ? fields.entries.slice(0, 1) : [])])),
      })),
      fc.tuple(path, this.findParams(), this.keysAndSession()).map(([base, params, headers]) => ({ method: 'GET', path: base + query({ keys: params.keys, include: params.include }), headers })),
      classPath.chain((base) => this.withBody('POST', base, this.body())),
      path.chain((base) => this.withBody('PUT', base, this.body())),
      fc.tuple(path, this.keysAndSession()).map(([base, headers]) => ({ method: 'DELETE', path: base, headers })),
      fc.tuple(classPath, fc.array(fc.tuple(fc.constantFrom('where', 'order', 'keys', 'limit', 'skip', 'count', 'include'), this.value), { maxLength: 4 })).chain(([base, params]) =>
        this.withBody('POST', base, this.methodForm(fc.constantFrom('GET', 'get', 'PUT', 'DELETE', 'POST', 'PATCH', 'HEAD', ''), params)),
      ),
      classPath.chain((base) => this.withBody('POST', base, this.where.map((where) => jsonText(obj({ _method: 'GET', where }))))),
    );
  }

  /** The SDK's body form: `_method` and the keys in the body. */
  methodForm(method: fc.Arbitrary<string>, fields: readonly (readonly [string, Json])[] = []): fc.Arbitrary<string> {
    const w = this.world;
    return fc
      .tuple(
        method,
        fc.record(
          {
            _ApplicationId: fc.oneof(fc.constant(w.appId), hostileString),
            _JavaScriptKey: fc.oneof(fc.constant(w.javascriptKey), hostileString),
            _MasterKey: hostileString,
            _SessionToken: fc.oneof(fc.constant(w.fuzzUserToken), hostileString),
            _ClientVersion: hostileString,
            _InstallationId: hostileString,
            _ContentType: hostileString,
            _RevocableSession: fc.constantFrom('1', '0'),
          },
          { requiredKeys: [] },
        ),
      )
      .map(([verb, sdk]) => jsonText(new Obj([['_method', verb], ...Object.entries(sdk), ...fields])));
  }

  batch(): fc.Arbitrary<FuzzRequest> {
    const command = fc
      .tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'get', ''),
        fc.oneof(
          fc.tuple(this.className, this.objectId).map(([cls, id]) => `/1/classes/${segment(cls)}/${segment(id)}`),
          this.className.map((cls) => `/1/classes/${segment(cls)}`),
          fc.constantFrom('/1/batch', '/1/users', '/1/login', '/1/schemas', '/1/files/a.txt', '/parse/classes/X', 'classes/X', '', '/1/../1/classes/X', '/1/classes/X?where={}'),
          hostileString,
        ),
        this.objectBody(),
      )
      .map(([method, path, body]) => obj({ method, path, body }));
    const requests = fc.oneof(
      { weight: 6, arbitrary: fc.array(command, { maxLength: 8 }) },
      { weight: 1, arbitrary: fc.array(this.value, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.integer({ min: 51, max: 60 }).chain((count) => fc.array(command, { minLength: count, maxLength: count })) },
      { weight: 1, arbitrary: this.value },
    );
    return this.withBody('POST', '/1/batch', this.body(fc.tuple(requests, fc.option(fc.tuple(hostileKey, this.value))).map(([list, extra]) => new Obj([['requests', list], ...(extra ? [extra] : [])]))));
  }

  users(): fc.Arbitrary<FuzzRequest> {
    const w = this.world;
    const credentials = fc.record({ username: this.value, password: this.value, email: fc.oneof(this.value, fc.constantFrom('a@b.c', 'a@b', '@', 'a@b.c\u0000', `${'x'.repeat(300)}@example.com`)) }, { requiredKeys: [] });
    const signUp = fc.tuple(credentials, fc.option(fc.tuple(fc.constantFrom('authData', 'sessionToken', 'emailVerified', '_hashed_password', 'ACL', 'objectId'), this.value))).map(([fields, extra]) => new Obj([...Object.entries(fields), ...(extra ? [extra] : [])]));
    const userPath = fc.oneof(fc.constant(`/1/users/${w.canaryUserId}`), fc.constant(`/1/users/${w.fuzzUserId}`), this.objectId.map((id) => `/1/users/${segment(id)}`));
    return fc.oneof(
      this.withBody('POST', '/1/users', this.body(signUp)),
      fc.tuple(fc.record({ username: hostileString, password: hostileString }, { requiredKeys: [] }), this.keys()).map(([params, headers]) => ({ method: 'GET', path: `/1/login${query(params)}`, headers })),
      this.withBody('POST', '/1/login', this.body(credentials.map((fields) => obj(fields)))),
      userPath.chain((path) => this.withBody('PUT', path, this.body(signUp))),
      fc.tuple(userPath, this.keysAndSession()).map(([path, headers]) => ({ method: 'GET', path, headers })),
      fc.tuple(userPath, this.keysAndSession()).map(([path, headers]) => ({ method: 'DELETE', path, headers })),
      fc.tuple(this.findParams(), this.keysAndSession()).map(([params, headers]) => ({ method: 'GET', path: `/1/users${query(params)}`, headers })),
      this.keysAndSession().map((headers) => ({ method: 'GET', path: '/1/users/me', headers })),
      this.keysAndSession().map((headers) => ({ method: 'POST', path: '/1/logout', headers })),
      this.withBody('POST', '/1/requestPasswordReset', this.body(this.value.map((email) => obj({ email })))),
      this.withBody('POST', '/1/verificationEmailRequest', this.body(this.value.map((email) => obj({ email })))),
    );
  }

  sessions(): fc.Arbitrary<FuzzRequest> {
    const path = this.objectId.map((id) => `/1/sessions/${segment(id)}`);
    return fc.oneof(
      fc.tuple(this.findParams(), this.keysAndSession()).map(([params, headers]) => ({ method: 'GET', path: `/1/sessions${query(params)}`, headers })),
      this.keysAndSession().map((headers) => ({ method: 'GET', path: '/1/sessions/me', headers })),
      fc.tuple(path, this.keysAndSession()).map(([p, headers]) => ({ method: 'GET', path: p, headers })),
      path.chain((p) => this.withBody('PUT', p, this.body())),
      fc.tuple(path, this.keysAndSession()).map(([p, headers]) => ({ method: 'DELETE', path: p, headers })),
      this.withBody('POST', '/1/sessions', this.body()),
      this.withBody('PUT', '/1/sessions/me', this.body()),
    );
  }

  roles(): fc.Arbitrary<FuzzRequest> {
    const relation = fc.oneof(this.value, fc.array(this.objectId, { maxLength: 3 }).map((ids) => obj({ __op: 'AddRelation', objects: ids.map((objectId) => obj({ __type: 'Pointer', className: '_User', objectId })) })));
    const role = fc.record({ name: this.value, ACL: this.value, users: relation, roles: relation }, { requiredKeys: [] }).map((fields) => obj(fields));
    const path = this.objectId.map((id) => `/1/roles/${segment(id)}`);
    return fc.oneof(
      this.withBody('POST', '/1/roles', this.body(role)),
      this.withBody('POST', '/1/classes/_Role', this.body(role)),
      path.chain((p) => this.withBody('PUT', p, this.body(role))),
      fc.tuple(path, this.keysAndSession()).map(([p, headers]) => ({ method: 'GET', path: p, headers })),
      fc.tuple(path, this.keysAndSession()).map(([p, headers]) => ({ method: 'DELETE', path: p, headers })),
      fc.tuple(this.findParams(), this.keysAndSession()).map(([params, headers]) => ({ method: 'GET', path: `/1/roles${query(params)}`, headers })),
    );
  }

  installations(): fc.Arbitrary<FuzzRequest> {
    const installation = fc
      .record(
        {
          deviceType: fc.oneof(fc.constantFrom('ios', 'android', 'web', 'winrt', 'embedded', 'IOS', ''), this.value),
          installationId: fc.oneof(fc.uuid(), this.value),
          deviceToken: this.value,
          channels: fc.oneof(fc.array(hostileString, { maxLength: 4 }), this.value),
          appIdentifier: this.value,
          badge: fc.oneof(hostileNumber, this.value),
          timeZone: this.value,
          pushType: this.value,
        },
        { requiredKeys: [] },
      )
      .map((fields) => obj(fields));
    const path = this.objectId.map((id) => `/1/installations/${segment(id)}`);
    return fc.oneof(
      this.withBody('POST', '/1/installations', this.body(installation)),
      this.withBody('POST', '/1/classes/_Installation', this.body(installation)),
      path.chain((p) => this.withBody('PUT', p, this.body(installation))),
      fc.tuple(path, this.keysAndSession()).map(([p, headers]) => ({ method: 'GET', path: p, headers })),
      fc.tuple(path, this.keysAndSession()).map(([p, headers]) => ({ method: 'DELETE', path: p, headers })),
      fc.tuple(this.findParams(), this.keysAndSession()).map(([params, headers]) => ({ method: 'GET', path: `/1/installations${query(params)}`, headers })),
    );
  }

  /** The master key on the schema API, on classes other than the canary's. */
  schemas(): fc.Arbitrary<FuzzRequest> {
    const w = this.world;
    const master = fc.constant({ 'X-Svc-Application-Id': w.appId, 'X-Svc-Master-Key': w.masterKey });
    const name = fc.oneof(fc.constantFrom('FuzzSchemaA', 'FuzzSchemaB', w.fuzzClass, '_User', '_Role', '_Session', '_Installation', '_Foo'), hostileString).filter((n) => n !== w.canaryClass);
    const type = fc.oneof(fc.constantFrom('String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'GeoPoint', 'Polygon', 'File', 'Bytes', 'Pointer', 'Relation', 'ACL', 'string', 'Foo', ''), this.value);
    const field = fc.oneof(
      fc.record({ type, targetClass: fc.oneof(this.className, this.value), required: this.value, defaultValue: this.value }, { requiredKeys: ['type'] }).map((fields) => obj(fields)),
      fc.constant(obj({ __op: 'Delete' })),
      this.value,
    );
    const fields = fc.array(fc.tuple(this.fieldName, field), { maxLength: 4 }).map((entries) => new Obj(entries));
    const clp = fc.oneof(
      fc.array(fc.tuple(fc.constantFrom('find', 'get', 'count', 'create', 'update', 'delete', 'addField', 'protectedFields', 'readUserFields', 'writeUserFields', 'foo'), fc.oneof(this.value, fc.constant(obj({ '*': true })))), { maxLength: 4 }).map((entries) => new Obj(entries)),
      this.value,
    );
    const indexes = fc.oneof(fc.array(fc.tuple(hostileKey, fc.oneof(this.value, fc.array(fc.tuple(this.fieldName, fc.oneof(hostileNumber, fc.constantFrom<Json>(1, -1, 'text', '2dsphere'))), { maxLength: 3 }).map((e) => new Obj(e)))), { maxLength: 3 }).map((e) => new Obj(e)), this.value);
    const schema = fc.tuple(name, fc.record({ fields, classLevelPermissions: clp, indexes, className: this.value }, { requiredKeys: [] })).map(([n, rest]) => obj({ className: n, ...rest }));
    return fc.oneof(
      master.map((headers) => ({ method: 'GET', path: '/1/schemas', headers })),
      fc.tuple(name, master).map(([n, headers]) => ({ method: 'GET', path: `/1/schemas/${segment(n)}`, headers })),
      name.chain((n) => this.withBody('POST', `/1/schemas/${segment(n)}`, this.body(schema), master)),
      name.chain((n) => this.withBody('PUT', `/1/schemas/${segment(n)}`, this.body(schema), master)),
      this.withBody('POST', '/1/schemas', this.body(schema), master),
      fc.tuple(name.filter((n) => n !== w.fuzzClass), master).map(([n, headers]) => ({ method: 'DELETE', path: `/1/schemas/${segment(n)}`, headers })),
      fc.tuple(name, this.keysAndSession()).map(([n, headers]) => ({ method: 'GET', path: `/1/schemas/${segment(n)}`, headers })),
    );
  }

  config(): fc.Arbitrary<FuzzRequest> {
    const w = this.world;
    const master = fc.constant({ 'X-Svc-Application-Id': w.appId, 'X-Svc-Master-Key': w.masterKey });
    const params = fc.array(fc.tuple(hostileKey, this.value), { maxLength: 4 }).map((e) => new Obj(e));
    const change = fc.record({ params: fc.oneof(params, this.value), masterKeyOnly: fc.oneof(fc.array(fc.tuple(hostileKey, this.value), { maxLength: 3 }).map((e) => new Obj(e)), this.value) }, { requiredKeys: [] }).map((fields) => obj(fields));
    return fc.oneof(
      this.keysAndSession().map((headers) => ({ method: 'GET', path: '/1/config', headers })),
      master.map((headers) => ({ method: 'GET', path: '/1/config', headers })),
      this.withBody('PUT', '/1/config', this.body(change), master),
      this.withBody('PUT', '/1/config', this.body(change)),
    );
  }

  events(): fc.Arbitrary<FuzzRequest> {
    const w = this.world;
    const name = fc.oneof(fc.constantFrom('AppOpened', 'Search', 'error', '_Foo'), hostileString).map(segment);
    const event = fc.record({ dimensions: fc.oneof(fc.array(fc.tuple(hostileKey, this.value), { maxLength: 9 }).map((e) => new Obj(e)), this.value), at: this.value }, { requiredKeys: [] }).map((fields) => obj(fields));
    const countParams = fc.record({ from: hostileString, to: hostileString, span: fc.constantFrom('hour', 'day', 'week', ''), dimension: hostileString, value: hostileString, where: this.where.map(jsonText) }, { requiredKeys: [] });
    return fc.oneof(
      name.chain((n) => this.withBody('POST', `/1/events/${n}`, this.body(event))),
      fc.tuple(name, countParams, fc.oneof(fc.constant({ 'X-Svc-Application-Id': w.appId, 'X-Svc-Master-Key': w.masterKey }), this.keys())).map(([n, params, headers]) => ({ method: 'GET', path: `/1/events/${n}/counts${query(params)}`, headers })),
    );
  }

  files(): fc.Arbitrary<FuzzRequest> {
    const w = this.world;
    const name = fc.oneof(fc.constantFrom('a.txt', 'photo.jpg', '.htaccess', 'a b.png', 'x'.repeat(200), 'file.', '.', '..'), hostileString).map(segment);
    const type = fc.oneof(fc.constantFrom(undefined, 'text/plain', 'image/png', 'application/octet-stream', 'a/b/c', 'text', '', 'text/plain; charset=utf-8', `x/${'y'.repeat(300)}`), hostileString.map(headerSafe));
    const bytes = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.integer({ min: 0, max: 200_000 }).map((n) => 'b'.repeat(n)));
    const range = fc.oneof(fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=5-', 'bytes=9999999-', 'bytes=1-0', 'bytes=0-1,2-3', 'bytes=abc', 'lines=1-2', 'bytes=-0', 'bytes=0-99999999999999999999'), hostileString.map(headerSafe));
    return fc.oneof(
      fc.tuple(name, type, bytes, this.keys()).map(([n, t, body, headers]) => ({ method: 'POST', path: `/1/files/${n}`, headers: t === undefined ? headers : { ...headers, 'Content-Type': t }, body })),
      fc.tuple(name, this.methodForm(fc.constantFrom('POST', 'DELETE', 'GET', ''), [['base64', 'aGVsbG8=']])).map(([n, body]) => ({ method: 'POST', path: `/1/files/${n}`, headers: { 'Content-Type': 'text/plain' }, body })),
      fc.tuple(name, this.keys()).map(([n, headers]) => ({ method: 'DELETE', path: `/1/files/${n}`, headers })),
      fc.tuple(name, fc.option(range), fc.option(hostileString.map(headerSafe))).map(([n, r, tag]) => ({
        method: 'GET',
        path: `/files/${segment(w.appId)}/${n}`,
        headers: { ...(r === null ? {} : { Range: r }), ...(tag === null ? {} : { 'If-None-Match': tag, 'If-Range': tag }) },
      })),
      fc.tuple(hostileString, name).map(([app, n]) => ({ method: 'GET', path: `/files/${segment(app)}/${n}`, headers: {} })),
    );
  }

  /** Paths Basalt does not serve (push, cloud functions, jobs, …) and broken ones: 404/108. */
  unserved(): fc.Arbitrary<FuzzRequest> {
    const path = fc.oneof(
      fc.constantFrom('/1/push', '/1/functions/hello', '/1/jobs/cleanup', '/1/hooks/functions', '/1/purge/X', '/1/serverInfo', '/1/aggregate/X', '/graphql', '/1/health', '/1', '/', '/2/classes/X', '/1/classes', '/1/classes/'),
      fc.tuple(fc.constantFrom('/1/functions/', '/1/jobs/', '/1/push/', '/1/classes/X/y/', '/1/users/x/', '/files/', '/1/'), rawSegment).map(([base, seg]) => base + seg),
    );
    return fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), path, this.keysAndSession(), fc.option(this.body())).map(([method, p, headers, body]) =>
      body === null || method === 'GET' ? { method, path: p, headers } : { method, path: p, headers: { ...headers, 'Content-Type': 'application/json' }, body },
    );
  }

  /** Any family's request with its headers replaced or spoiled, and odd methods. */
  headers(): fc.Arbitrary<FuzzRequest> {
    const extra = fc.array(fc.tuple(fc.oneof(fc.constantFrom('X-Svc-Application-Id', 'X-Parse-Session-Token', 'Content-Type', 'X-HTTP-Method-Override', 'X-Forwarded-For', 'X-Forwarded-Host', 'X-Forwarded-Proto', 'Origin', 'Accept', 'Accept-Encoding', 'Cookie', 'If-Match', 'X-Parse-Upload-Mode', 'Access-Control-Request-Method'), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }).filter((n) => /^[A-Za-z0-9-]+$/.test(n))), fc.oneof(hostileString.map(headerSafe), fc.constant('x'.repeat(8_000)))), { maxLength: 4 });
    return fc.tuple(fc.oneof(this.objects(), this.users(), this.batch()), extra, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH')).map(([request, more, method]) => ({
      ...request,
      method: method === 'HEAD' || method === 'OPTIONS' || method === 'PATCH' ? method : request.method,
      body: method === 'HEAD' ? undefined : request.body,
      headers: { ...request.headers, ...Object.fromEntries(more) },
    }));
  }
}
