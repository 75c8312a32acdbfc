import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { signUp, type TestUser } from '../helpers/users.ts';
import { Parse, eachBackendWithSdk, rejectsWithCode } from '../helpers/sdk.ts';

/** Parse.Role with its users and roles relations, and the ACLs that grant access through roles. */

const MASTER = { key: 'master' } as const;
const useMasterKey = { useMasterKey: true } as const;
type Obj = Parse.Object<Record<string, any>>;

eachBackendWithSdk('SDK roles and ACLs', (suite) => {
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const asUser = (user: TestUser) => ({ sessionToken: user.sessionToken });
  const pointer = (user: TestUser) => Parse.User.createWithoutData(user.objectId) as Parse.User;

  before(async () => {
    [alice, bob, carol] = await Promise.all([signUp(suite.app), signUp(suite.app), signUp(suite.app)]);
  });

  async function newRole(name: string, users: TestUser[] = [], roles: Parse.Role[] = []): Promise<Parse.Role> {
    const acl = new Parse.ACL();
    acl.setPublicReadAccess(true);
    const role = new Parse.Role(name, acl);
    if (users.length) role.getUsers().add(users.map(pointer));
    if (roles.length) role.getRoles().add(roles);
    await role.save(null, useMasterKey);
    return role;
  }

  /** An object only the role may read (and, with `write`, change). */
  async function guarded(role: Parse.Role, write = false): Promise<Obj> {
    const acl = new Parse.ACL();
    acl.setRoleReadAccess(role, true);
    if (write) acl.setRoleWriteAccess(role, true);
    const object = new Parse.Object<Record<string, any>>(unique('Guarded'), { text: 'for the role' });
    object.setACL(acl);
    return object.save(null, useMasterKey);
  }

  async function canRead(object: Obj, user: TestUser): Promise<boolean> {
    try {
      await new Parse.Query(object.className).get(object.id!, asUser(user));
      return true;
    } catch (error) {
      assert.equal((error as Parse.Error).code, Parse.Error.OBJECT_NOT_FOUND);
      return false;
    }
  }

  it('saves a Parse.Role with its users; the role is stored with its name and ACL', async () => {
    const name = unique('Moderators');
    const role = await newRole(name, [alice]);
    assert.ok(role.id);
    assert.equal(role.getName(), name);
    const stored = await suite.app.get(`/1/roles/${role.id}`, MASTER);
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.name, name);
    assert.deepEqual(stored.body.ACL, { '*': { read: true } });
    const members = await suite.app.get('/1/users', { ...MASTER, query: { where: { $relatedTo: { object: { __type: 'Pointer', className: '_Role', objectId: role.id }, key: 'users' } } } });
    assert.deepEqual(members.body.results.map((user: { objectId: string }) => user.objectId), [alice.objectId]);

    const back = await new Parse.Query(Parse.Role).get(role.id!);
    assert.ok(back instanceof Parse.Role);
    assert.equal(back.getName(), name);
    // The roles a user is in, as the SDK asks for them.
    const mine = await new Parse.Query(Parse.Role).equalTo('users', pointer(alice)).find(asUser(alice));
    assert.deepEqual(mine.map((r) => r.id), [role.id]);
  });

  it('a role ACL grants read access to the role’s users only', async () => {
    const role = await newRole(unique('Readers'), [alice]);
    const object = await guarded(role);
    assert.equal(await canRead(object, alice), true);
    assert.equal(await canRead(object, bob), false);
    assert.deepEqual((await new Parse.Query(object.className).find(asUser(bob))).length, 0);
    assert.deepEqual((await new Parse.Query(object.className).find(asUser(alice))).map((o) => o.id), [object.id]);
  });

  it('a role ACL grants write access: a member updates and deletes, others get 101', async () => {
    const role = await newRole(unique('Writers'), [alice]);
    const object = await guarded(role, true);
    const mine = await new Parse.Query<Obj>(object.className).get(object.id!, asUser(alice));
    mine.set('text', 'changed by alice');
    await mine.save(null, asUser(alice));
    const stored = await suite.app.get(`/1/classes/${object.className}/${object.id}`, MASTER);
    assert.equal(stored.body.text, 'changed by alice');

    const theirs = Parse.Object.fromJSON({ className: object.className, objectId: object.id }) as Obj;
    theirs.set('text', 'changed by bob');
    await rejectsWithCode(() => theirs.save(null, asUser(bob)), Parse.Error.OBJECT_NOT_FOUND);
    await rejectsWithCode(() => theirs.destroy(asUser(bob)), Parse.Error.OBJECT_NOT_FOUND);
    await mine.destroy(asUser(alice));
    assert.equal((await suite.app.get(`/1/classes/${object.className}/${object.id}`, MASTER)).status, 404);
  });

  it('read-only role access does not allow writes', async () => {
    const role = await newRole(unique('ReadOnly'), [alice]);
    const object = await guarded(role);
    const mine = await new Parse.Query<Obj>(object.className).get(object.id!, asUser(alice));
    mine.set('text', 'nope');
    await rejectsWithCode(() => mine.save(null, asUser(alice)), Parse.Error.OBJECT_NOT_FOUND);
  });

  it('a child role in getRoles() passes the parent’s access to its users, not the other way', async () => {
    const child = await newRole(unique('Child'), [bob]);
    const parent = await newRole(unique('Parent'), [alice], [child]);
    const forParent = await guarded(parent);
    const forChild = await guarded(child);
    assert.equal(await canRead(forParent, bob), true);
    assert.equal(await canRead(forParent, alice), true);
    assert.equal(await canRead(forChild, alice), false);
    assert.equal(await canRead(forChild, bob), true);
    assert.equal(await canRead(forParent, carol), false);
    // The child roles of the parent, through its relation.
    const children = await parent.getRoles().query().find();
    assert.deepEqual(children.map((r) => r.id), [child.id]);
  });

  it('adding and removing users through the relation changes access', async () => {
    const role = await newRole(unique('Changing'));
    const object = await guarded(role);
    assert.equal(await canRead(object, carol), false);
    role.getUsers().add(pointer(carol));
    await role.save(null, useMasterKey);
    assert.equal(await canRead(object, carol), true);
    role.getUsers().remove(pointer(carol));
    await role.save(null, useMasterKey);
    assert.equal(await canRead(object, carol), false);
  });

  it('the users of a role are queried through getUsers().query()', async () => {
    const role = await newRole(unique('Listed'), [alice, bob]);
    const users = await role.getUsers().query().find(useMasterKey);
    assert.deepEqual(users.map((user) => user.id).sort(), [alice.objectId, bob.objectId].sort());
  });

  it('a role name in use is 137, and a role without write access for the caller is 101', async () => {
    const name = unique('Taken');
    await newRole(name);
    const again = new Parse.Role(name, new Parse.ACL());
    await rejectsWithCode(() => again.save(null, useMasterKey), Parse.Error.DUPLICATE_VALUE);
    const count = await suite.app.get('/1/roles', { ...MASTER, query: { where: { name }, count: 1, limit: 0 } });
    assert.equal(count.body.count, 1);

    const role = await newRole(unique('Locked'));
    role.getUsers().add(pointer(bob));
    await rejectsWithCode(() => role.save(null, asUser(bob)), Parse.Error.OBJECT_NOT_FOUND);
  });
});
