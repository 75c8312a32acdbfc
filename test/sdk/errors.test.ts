import { it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { signUp } from '../helpers/users.ts';
import { Parse, eachBackendWithSdk, pointSdkAt, rejectsWithCode } from '../helpers/sdk.ts';

/**
 * The ParseError the SDK rejects with for each kind of refusal: Basalt's `{code, error}` answers
 * become `error.code` and `error.message`, and nothing is written.
 */

const MASTER = { key: 'master' } as const;

eachBackendWithSdk('SDK errors', (suite) => {
  /** Asserts the code, that the message is the server's (not empty) and returns it. */
  async function refused(action: () => Promise<unknown>, code: number): Promise<string> {
    const error = await rejectsWithCode(action, code);
    assert.ok(error instanceof Parse.Error);
    assert.equal(typeof error.message, 'string');
    assert.ok(error.message.length > 0);
    return error.message;
  }

  async function count(className: string): Promise<number> {
    const response = await suite.app.get(`/1/classes/${className}`, { ...MASTER, query: { count: 1, limit: 0 } });
    return response.status === 200 ? response.body.count : 0;
  }

  it('101: getting, fetching, saving or destroying an object that does not exist', async () => {
    const className = unique('Missing');
    await new Parse.Object(className).save();
    await refused(() => new Parse.Query(className).get('doesNotExist'), Parse.Error.OBJECT_NOT_FOUND);
    const ghost = Parse.Object.fromJSON({ className, objectId: 'doesNotExist' }) as Parse.Object<Record<string, any>>;
    await refused(() => ghost.fetch(), Parse.Error.OBJECT_NOT_FOUND);
    ghost.set('a', 1);
    await refused(() => ghost.save(), Parse.Error.OBJECT_NOT_FOUND);
    await refused(() => ghost.destroy(), Parse.Error.OBJECT_NOT_FOUND);
    assert.equal(await count(className), 1);
  });

  it('101: a login with a wrong password or an unknown username', async () => {
    const user = await signUp(suite.app);
    await refused(() => Parse.User.logIn(user.username, 'wrong'), Parse.Error.OBJECT_NOT_FOUND);
    await refused(() => Parse.User.logIn(unique('nobody'), 'pw'), Parse.Error.OBJECT_NOT_FOUND);
  });

  it('102: a query constraint the server does not know', async () => {
    const className = unique('Q');
    await new Parse.Object(className).save();
    const query = new Parse.Query(className);
    (query as unknown as { _addCondition(key: string, op: string, value: unknown): void })._addCondition('score', '$bogus', 1);
    await refused(() => query.find(), Parse.Error.INVALID_QUERY);
  });

  it('103: an invalid class name', async () => {
    await refused(() => new Parse.Query('bad-name').find(), Parse.Error.INVALID_CLASS_NAME);
    await refused(() => new Parse.Object('9Lives').save(), Parse.Error.INVALID_CLASS_NAME);
    await refused(() => new Parse.Object('_Private').save(), Parse.Error.INVALID_CLASS_NAME);
  });

  it('105: a field name the server refuses', async () => {
    // (The SDK itself refuses names outside [A-Za-z_][0-9A-Za-z_.]*; these pass it.)
    const className = unique('Keys');
    await refused(() => new Parse.Object<Record<string, any>>(className, { _private: 1 }).save(), Parse.Error.INVALID_KEY_NAME);
    await refused(() => new Parse.Object<Record<string, any>>(className, { ['a'.repeat(129)]: 1 }).save(), Parse.Error.INVALID_KEY_NAME);
    assert.equal(await count(className), 0);
  });

  it('107: a string the database cannot store; 121: a nested key with a dot or $', async () => {
    const className = unique('Json');
    await refused(() => new Parse.Object<Record<string, any>>(className, { text: 'lone \ud800 surrogate' }).save(), Parse.Error.INVALID_JSON);
    await refused(() => new Parse.Object<Record<string, any>>(className, { meta: { 'a.b': 1 } }).save(), Parse.Error.INVALID_NESTED_KEY);
    await refused(() => new Parse.Object<Record<string, any>>(className, { meta: { $where: 1 } }).save(), Parse.Error.INVALID_NESTED_KEY);
    assert.equal(await count(className), 0);
  });

  it('111: a value of another type than the field has', async () => {
    const className = unique('Typed');
    const object = await new Parse.Object<Record<string, any>>(className, { n: 1, when: new Date(), place: new Parse.GeoPoint(1, 1) }).save();
    await refused(() => new Parse.Object<Record<string, any>>(className, { n: 'one' }).save(), Parse.Error.INCORRECT_TYPE);
    object.set('when', 'yesterday');
    await refused(() => object.save(), Parse.Error.INCORRECT_TYPE);
    object.revert();
    // One GeoPoint field per class.
    object.set('second', new Parse.GeoPoint(2, 2));
    await refused(() => object.save(), Parse.Error.INCORRECT_TYPE);
    assert.equal(await count(className), 1);
  });

  it('116: an object larger than 128 KB', async () => {
    const className = unique('Big');
    await refused(() => new Parse.Object<Record<string, any>>(className, { blob: 'x'.repeat(130 * 1024) }).save(), Parse.Error.OBJECT_TOO_LARGE);
    assert.equal(await count(className), 0);
  });

  it('119: a query of installations without the master key', async () => {
    await refused(() => new Parse.Query(Parse.Installation).find(), Parse.Error.OPERATION_FORBIDDEN);
  });

  it('137: a duplicate role name', async () => {
    const name = unique('Role');
    await new Parse.Role(name, new Parse.ACL()).save(null, { useMasterKey: true });
    await refused(() => new Parse.Role(name, new Parse.ACL()).save(null, { useMasterKey: true }), Parse.Error.DUPLICATE_VALUE);
  });

  it('202 and 203: a username or an email that is taken; 125: a malformed email', async () => {
    const user = await signUp(suite.app, { email: `${unique('mail')}@example.com` });
    const taken = await suite.app.get(`/1/users/${user.objectId}`, MASTER);
    await refused(() => Parse.User.signUp(user.username, 'pw', {}), Parse.Error.USERNAME_TAKEN);
    await refused(() => Parse.User.signUp(unique('user'), 'pw', { email: taken.body.email }), Parse.Error.EMAIL_TAKEN);
    await refused(() => Parse.User.signUp(unique('user'), 'pw', { email: 'not-an-email' }), Parse.Error.INVALID_EMAIL_ADDRESS);
    await Parse.User.logOut();
  });

  it('209: a session token that is unknown or ended', async () => {
    const className = unique('Sess');
    await refused(() => new Parse.Query(className).find({ sessionToken: 'r:0123456789abcdef0123456789abcdef' }), Parse.Error.INVALID_SESSION_TOKEN);
    await refused(() => Parse.User.become('r:0123456789abcdef0123456789abcdef'), Parse.Error.INVALID_SESSION_TOKEN);
    const user = await signUp(suite.app);
    await suite.app.post('/1/logout', {}, { headers: { 'X-Svc-Session-Token': user.sessionToken } });
    await refused(() => new Parse.Object(className).save(null, { sessionToken: user.sessionToken }), Parse.Error.INVALID_SESSION_TOKEN);
    assert.equal(await count(className), 0);
  });

  it('141: a cloud function nothing defines', async () => {
    await refused(() => Parse.Cloud.run('nothingDefinesThis'), Parse.Error.SCRIPT_FAILED);
  });

  it('903: a wrong JavaScript key, or an application id the server does not know', async () => {
    const className = unique('Keyed');
    try {
      (Parse as unknown as { javaScriptKey: string }).javaScriptKey = 'not-the-key';
      await refused(() => new Parse.Query(className).find(), 903);
      (Parse as unknown as { applicationId: string }).applicationId = unique('noSuchApp');
      await refused(() => new Parse.Query(className).find(), 903);
    } finally {
      pointSdkAt(suite.app);
    }
    assert.deepEqual(await new Parse.Query(className).find(), []);
  });
});
