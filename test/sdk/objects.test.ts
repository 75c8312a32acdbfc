import { it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { signUp } from '../helpers/users.ts';
import { Parse, eachBackendWithSdk, rejectsWithCode } from '../helpers/sdk.ts';

/** The Parse JavaScript SDK's Parse.Object against Basalt: every write read back through the SDK and as stored. */

const MASTER = { key: 'master' } as const;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

eachBackendWithSdk('SDK objects', (suite) => {
  /** The object as the master key reads it over plain HTTP. */
  async function stored(className: string, objectId: string): Promise<Record<string, any>> {
    const response = await suite.app.get(`/1/classes/${className}/${objectId}`, MASTER);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  it('saves a new object, then fetches and queries it with the same fields and dates', async () => {
    const className = unique('Score');
    const score = new Parse.Object(className);
    score.set({ player: 'Sean Plott', score: 1337, cheatMode: false, tags: ['a', 'b'], meta: { level: 3, names: ['x'] }, nothing: null });
    await score.save();
    assert.match(score.id!, /^[A-Za-z0-9]+$/);
    assert.ok(score.createdAt instanceof Date);
    assert.equal(score.updatedAt!.getTime(), score.createdAt!.getTime());
    assert.equal(score.existed(), false);
    assert.equal(score.dirty(), false);

    const row = await stored(className, score.id!);
    assert.deepEqual(row, {
      objectId: score.id,
      player: 'Sean Plott',
      score: 1337,
      cheatMode: false,
      tags: ['a', 'b'],
      meta: { level: 3, names: ['x'] },
      nothing: null,
      createdAt: score.createdAt!.toISOString(),
      updatedAt: score.createdAt!.toISOString(),
    });

    const fetched = await new Parse.Object<Record<string, any>>(className, { objectId: score.id }).fetch();
    assert.deepEqual(fetched.toJSON(), score.toJSON());
    const got = await new Parse.Query(className).get(score.id!);
    assert.deepEqual(got.attributes, score.attributes);
    assert.equal(got.existed(), true);
  });

  it('updates only the changed fields, and updatedAt moves forward', async () => {
    const className = unique('Score');
    const score = await new Parse.Object<Record<string, any>>(className, { player: 'Ann', score: 1, level: 'easy' }).save();
    const createdAt = score.createdAt!;
    score.set('score', 2);
    score.set('level', 'hard');
    assert.deepEqual(score.dirtyKeys().sort(), ['level', 'score']);
    await score.save();
    assert.ok(score.updatedAt!.getTime() >= createdAt.getTime());
    assert.equal(score.createdAt!.getTime(), createdAt.getTime());

    // A second instance saved without changes sends nothing that alters the object.
    const other = await new Parse.Query(className).get(score.id!);
    assert.equal(other.get('score'), 2);
    assert.equal(other.get('level'), 'hard');
    const row = await stored(className, score.id!);
    assert.equal(row.updatedAt, score.updatedAt!.toISOString());
    assert.deepEqual({ player: row.player, score: row.score, level: row.level }, { player: 'Ann', score: 2, level: 'hard' });
  });

  it('unsets a field: it is gone locally, from fetches and from storage', async () => {
    const className = unique('Score');
    const score = await new Parse.Object<Record<string, any>>(className, { keep: 1, drop: 'x' }).save();
    score.unset('drop');
    assert.equal(score.has('drop'), false);
    await score.save();
    assert.equal(score.has('drop'), false);
    const fetched = await new Parse.Query(className).get(score.id!);
    assert.equal(fetched.has('drop'), false);
    assert.equal(fetched.get('keep'), 1);
    assert.equal('drop' in (await stored(className, score.id!)), false);
  });

  it('increments and decrements atomically: two stale copies both count', async () => {
    const className = unique('Counter');
    const counter = await new Parse.Object<Record<string, any>>(className, { hits: 10 }).save();
    const copy = await new Parse.Query(className).get(counter.id!);

    counter.increment('hits');
    counter.increment('hits', 4);
    await counter.save();
    assert.equal(counter.get('hits'), 15);

    copy.decrement('hits', 3);
    await copy.save();
    // The copy knew 10, yet the server applied the decrement to 15.
    assert.equal(copy.get('hits'), 12);
    assert.equal((await stored(className, counter.id!)).hits, 12);
    await counter.fetch();
    assert.equal(counter.get('hits'), 12);

    // An increment on a field that does not exist yet starts from 0, also in a create.
    const fresh = new Parse.Object(className);
    fresh.increment('hits', 2);
    fresh.increment('other', 0.5);
    await fresh.save();
    assert.deepEqual([fresh.get('hits'), fresh.get('other')], [2, 0.5]);
    const row = await stored(className, fresh.id!);
    assert.deepEqual([row.hits, row.other], [2, 0.5]);
  });

  it('add, addUnique and remove change arrays on the server, also from stale copies', async () => {
    const className = unique('Tags');
    const item = await new Parse.Object<Record<string, any>>(className, { tags: ['a'] }).save();
    const copy = await new Parse.Query(className).get(item.id!);

    item.add('tags', 'b');
    item.addAll('tags', ['c', 'a']);
    await item.save();
    assert.deepEqual(item.get('tags'), ['a', 'b', 'c', 'a']);

    copy.addUnique('tags', 'b');
    copy.addAllUnique('tags', ['d', 'a']);
    await copy.save();
    assert.deepEqual((await stored(className, item.id!)).tags, ['a', 'b', 'c', 'a', 'd']);

    item.remove('tags', 'a');
    item.removeAll('tags', ['c', 'zzz']);
    await item.save();
    assert.deepEqual((await stored(className, item.id!)).tags, ['b', 'd']);
    await item.fetch();
    assert.deepEqual(item.get('tags'), ['b', 'd']);

    // Pointers in arrays: addUnique compares them by class and id.
    const target = await new Parse.Object<Record<string, any>>(className, { tags: [] }).save();
    item.addUnique('refs', target);
    await item.save();
    const again = await new Parse.Query(className).get(item.id!);
    again.addUnique('refs', new Parse.Object<Record<string, any>>(className, { objectId: target.id }));
    await again.save();
    assert.deepEqual((await stored(className, item.id!)).refs, [{ __type: 'Pointer', className, objectId: target.id }]);
  });

  it('stores Dates as {__type: Date} and gives them back as Date objects', async () => {
    const className = unique('Event');
    const when = new Date('2024-02-29T12:34:56.789Z');
    const event = await new Parse.Object<Record<string, any>>(className, { when, list: [when], inner: { at: when } }).save();
    const row = await stored(className, event.id!);
    assert.deepEqual(row.when, { __type: 'Date', iso: '2024-02-29T12:34:56.789Z' });
    assert.deepEqual(row.list, [{ __type: 'Date', iso: '2024-02-29T12:34:56.789Z' }]);
    assert.deepEqual(row.inner, { at: { __type: 'Date', iso: '2024-02-29T12:34:56.789Z' } });
    const back = await new Parse.Query(className).get(event.id!);
    assert.ok(back.get('when') instanceof Date);
    assert.equal(back.get('when').toISOString(), when.toISOString());
    assert.equal(back.get('list')[0].toISOString(), when.toISOString());
    assert.equal(back.get('inner').at.toISOString(), when.toISOString());
    assert.match(row.createdAt, ISO);
  });

  it('stores Bytes as sent and reads them back unchanged', async () => {
    const className = unique('Blob');
    const bytes = { __type: 'Bytes', base64: Buffer.from('hello bytes').toString('base64') };
    const blob = await new Parse.Object<Record<string, any>>(className, { data: bytes }).save();
    assert.deepEqual((await stored(className, blob.id!)).data, bytes);
    const back = await new Parse.Query(className).get(blob.id!);
    assert.deepEqual(back.get('data'), bytes);
    // A malformed value is refused (111) and nothing is stored.
    const bad = new Parse.Object<Record<string, any>>(className, { data: { __type: 'Bytes', base64: 'not base64!' } });
    await rejectsWithCode(() => bad.save(), Parse.Error.INCORRECT_TYPE);
    assert.equal(bad.id, undefined);
  });

  it('stores GeoPoints and reads them back as Parse.GeoPoint', async () => {
    const className = unique('Place');
    const place = await new Parse.Object<Record<string, any>>(className, { location: new Parse.GeoPoint(40.0, -30.5) }).save();
    assert.deepEqual((await stored(className, place.id!)).location, { __type: 'GeoPoint', latitude: 40, longitude: -30.5 });
    const back = await new Parse.Query(className).get(place.id!);
    const point = back.get('location');
    assert.ok(point instanceof Parse.GeoPoint);
    assert.deepEqual([point.latitude, point.longitude], [40, -30.5]);
  });

  it('saves pointers (an unsaved target is saved first) and fetches the target through them', async () => {
    const postClass = unique('Post');
    const commentClass = unique('Comment');
    const post = new Parse.Object<Record<string, any>>(postClass, { title: 'I am Hungry' });
    const comment = new Parse.Object<Record<string, any>>(commentClass, { content: 'Let us do Sushirrito.', parent: post });
    await comment.save();
    // The SDK saved the post first, so it has an id the comment points to.
    assert.ok(post.id);
    assert.deepEqual((await stored(commentClass, comment.id!)).parent, { __type: 'Pointer', className: postClass, objectId: post.id });

    const back = await new Parse.Query(commentClass).get(comment.id!);
    const parent = back.get('parent');
    assert.ok(parent instanceof Parse.Object);
    assert.equal(parent.className, postClass);
    assert.equal(parent.id, post.id);
    assert.equal(parent.isDataAvailable(), false);
    await parent.fetch();
    assert.equal(parent.get('title'), 'I am Hungry');

    const included = await new Parse.Query(commentClass).include('parent').get(comment.id!);
    assert.equal(included.get('parent').get('title'), 'I am Hungry');
    // A pointer to another class in the same field is a type change (111).
    const other = await new Parse.Object(unique('Other')).save();
    back.set('parent', other);
    await rejectsWithCode(() => back.save(), Parse.Error.INCORRECT_TYPE);
  });

  it('keeps a saved Parse.File in a field and gives back its name and url', async () => {
    const className = unique('Profile');
    const file = new Parse.File('photo.txt', { base64: Buffer.from('a photo').toString('base64') }, 'text/plain');
    await file.save();
    const profile = await new Parse.Object<Record<string, any>>(className, { photo: file }).save();
    const row = await stored(className, profile.id!);
    assert.equal(row.photo.__type, 'File');
    assert.equal(row.photo.name, file.name());
    assert.equal(row.photo.url, file.url());
    const back = await new Parse.Query(className).get(profile.id!);
    const photo = back.get('photo');
    assert.ok(photo instanceof Parse.File);
    assert.equal(photo.name(), file.name());
    assert.equal(photo.url(), file.url());
    const download = await fetch(photo.url()!);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), 'a photo');
  });

  it('destroys an object: later reads and fetches fail with 101', async () => {
    const className = unique('Gone');
    const gone = await new Parse.Object<Record<string, any>>(className, { a: 1 }).save();
    const id = gone.id!;
    await gone.destroy();
    const response = await suite.app.get(`/1/classes/${className}/${id}`, MASTER);
    assert.equal(response.status, 404);
    assert.equal(response.body.code, 101);
    await rejectsWithCode(() => new Parse.Query(className).get(id), Parse.Error.OBJECT_NOT_FOUND);
    await rejectsWithCode(() => new Parse.Object<Record<string, any>>(className, { objectId: id }).fetch(), Parse.Error.OBJECT_NOT_FOUND);
    await rejectsWithCode(() => new Parse.Object<Record<string, any>>(className, { objectId: id }).destroy(), Parse.Error.OBJECT_NOT_FOUND);
  });

  it('stores a Parse.ACL and enforces it for other users, the owner and the master key', async () => {
    const className = unique('Secret');
    const [owner, stranger] = await Promise.all([signUp(suite.app), signUp(suite.app)]);
    const ownerUser = Parse.User.createWithoutData(owner.objectId);
    const acl = new Parse.ACL(ownerUser);
    acl.setRoleReadAccess('Admins', true);
    const secret = new Parse.Object<Record<string, any>>(className, { text: 'mine' });
    secret.setACL(acl);
    await secret.save(null, { sessionToken: owner.sessionToken });

    const row = await stored(className, secret.id!);
    assert.deepEqual(row.ACL, { [owner.objectId]: { read: true, write: true }, 'role:Admins': { read: true } });

    const mine = await new Parse.Query(className).get(secret.id!, { sessionToken: owner.sessionToken });
    const readAcl = mine.getACL()!;
    assert.ok(readAcl instanceof Parse.ACL);
    assert.equal(readAcl.getReadAccess(owner.objectId), true);
    assert.equal(readAcl.getWriteAccess(owner.objectId), true);
    assert.equal(readAcl.getPublicReadAccess(), false);
    assert.equal(readAcl.getRoleReadAccess('Admins'), true);
    assert.equal(readAcl.getRoleWriteAccess('Admins'), false);

    // Neither the public nor another user can see or change it; the master key can.
    await rejectsWithCode(() => new Parse.Query(className).get(secret.id!), Parse.Error.OBJECT_NOT_FOUND);
    await rejectsWithCode(() => new Parse.Query(className).get(secret.id!, { sessionToken: stranger.sessionToken }), Parse.Error.OBJECT_NOT_FOUND);
    assert.equal((await new Parse.Query(className).find({ sessionToken: stranger.sessionToken })).length, 0);
    const theirs = Parse.Object.fromJSON({ className, objectId: secret.id });
    theirs.set('text', 'stolen');
    await rejectsWithCode(() => theirs.save(null, { sessionToken: stranger.sessionToken }), Parse.Error.OBJECT_NOT_FOUND);
    const master = await new Parse.Query(className).get(secret.id!, { useMasterKey: true });
    assert.equal(master.get('text'), 'mine');

    // The owner opens it to the public for reading.
    mine.getACL()!.setPublicReadAccess(true);
    mine.setACL(mine.getACL()!);
    await mine.save(null, { sessionToken: owner.sessionToken });
    assert.deepEqual((await stored(className, secret.id!)).ACL, { '*': { read: true }, [owner.objectId]: { read: true, write: true }, 'role:Admins': { read: true } });
    const open = await new Parse.Query(className).get(secret.id!);
    assert.equal(open.get('text'), 'mine');
  });

  it('a save with the context option stores only the object’s fields', async () => {
    const className = unique('Ctx');
    const object = await new Parse.Object<Record<string, any>>(className, { a: 1 }).save(null, { context: { reason: 'import' } });
    object.set('a', 2);
    await object.save(null, { context: { reason: 'fix' } });
    const row = await stored(className, object.id!);
    assert.deepEqual(Object.keys(row).sort(), ['a', 'createdAt', 'objectId', 'updatedAt']);
    assert.equal(row.a, 2);
  });

  it('unset("ACL") and clear() remove the ACL: the object becomes public', async () => {
    const className = unique('Opened');
    const owner = await signUp(suite.app);
    const object = new Parse.Object<Record<string, any>>(className, { text: 'x', other: 1 });
    object.setACL(new Parse.ACL(Parse.User.createWithoutData(owner.objectId)));
    await object.save(null, { sessionToken: owner.sessionToken });
    await rejectsWithCode(() => new Parse.Query(className).get(object.id!), Parse.Error.OBJECT_NOT_FOUND);
    object.unset('ACL');
    await object.save(null, { sessionToken: owner.sessionToken });
    assert.equal('ACL' in (await stored(className, object.id!)), false);
    assert.equal((await new Parse.Query(className).get(object.id!)).get('text'), 'x');

    const cleared = new Parse.Object<Record<string, any>>(className, { text: 'y', other: 2 });
    cleared.setACL(new Parse.ACL(Parse.User.createWithoutData(owner.objectId)));
    await cleared.save(null, { sessionToken: owner.sessionToken });
    cleared.clear();
    await cleared.save(null, { sessionToken: owner.sessionToken });
    const row = await stored(className, cleared.id!);
    assert.deepEqual(Object.keys(row).sort(), ['createdAt', 'objectId', 'updatedAt']);
  });

  it('refuses a field type change with 111 and leaves the object as it was', async () => {
    const className = unique('Typed');
    const typed = await new Parse.Object<Record<string, any>>(className, { n: 1 }).save();
    typed.set('n', 'one');
    await rejectsWithCode(() => typed.save(), Parse.Error.INCORRECT_TYPE);
    assert.equal((await stored(className, typed.id!)).n, 1);
  });
});
