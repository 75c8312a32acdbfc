import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { unique } from '../helpers/client.ts';
import { Parse, eachBackendWithSdk, sdkError } from '../helpers/sdk.ts';

/**
 * Parse.File from each source the Node SDK takes: base64 (plain and as a data: URL), an array of
 * bytes, a Uint8Array (all sent as the JSON form `{base64, _ContentType}`), a Buffer and a
 * stream (sent as the raw body, `X-Parse-Upload-Mode: stream`). Each upload is downloaded again
 * from its url; deleting needs the master key.
 */

const TEXT = 'Hello, Basalt! é ✓';
const BYTES = [...Buffer.from(TEXT, 'utf8')];
const BASE64 = Buffer.from(TEXT, 'utf8').toString('base64');

eachBackendWithSdk('SDK files', (suite) => {
  async function download(file: Parse.File): Promise<{ status: number; type: string | null; body: string }> {
    const response = await fetch(file.url()!);
    return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()).toString('utf8') };
  }

  /** Saves the file and checks its name, url and stored bytes. */
  async function saveAndCheck(file: Parse.File, name: string, type: string): Promise<Parse.File> {
    assert.equal(file.url(), undefined);
    await file.save();
    assert.ok(file.name().endsWith(name), file.name());
    assert.notEqual(file.name(), name, 'the server gives the file a unique name');
    assert.equal(file.url(), `${suite.target.url}/files/${suite.app.app.applicationId}/${file.name()}`);
    const got = await download(file);
    assert.equal(got.status, 200);
    assert.equal(got.body, TEXT);
    assert.equal(got.type?.split(';')[0], type);
    return file;
  }

  it('from base64, with the type given or taken from a data: URL', async () => {
    await saveAndCheck(new Parse.File('plain.txt', { base64: BASE64 }, 'text/plain'), 'plain.txt', 'text/plain');
    await saveAndCheck(new Parse.File('data-url.json', { base64: `data:application/json;base64,${BASE64}` }), 'data-url.json', 'application/json');
  });

  it('from an array of bytes and from a Uint8Array', async () => {
    await saveAndCheck(new Parse.File('bytes.txt', BYTES, 'text/plain'), 'bytes.txt', 'text/plain');
    await saveAndCheck(new Parse.File('uint8.bin', new Uint8Array(BYTES) as any, 'application/octet-stream'), 'uint8.bin', 'application/octet-stream');
  });

  // (A Blob cannot be saved by the Node build: it reads Blobs with the browser's FileReader.)
  it('from a Buffer (raw upload) and a stream (raw upload)', async () => {
    await saveAndCheck(new Parse.File('buffer.txt', Buffer.from(TEXT) as any, 'text/plain'), 'buffer.txt', 'text/plain');
    await saveAndCheck(new Parse.File('stream.txt', Readable.from([Buffer.from(TEXT)]) as any, 'text/plain'), 'stream.txt', 'text/plain');
    // A Buffer with metadata and tags goes as JSON; they are accepted (and not kept).
    await saveAndCheck(new Parse.File('meta.txt', Buffer.from(TEXT) as any, 'text/plain', { owner: 'me' }, { kind: 'test' }), 'meta.txt', 'text/plain');
  });

  it('getData reads the bytes back from the server', async () => {
    const file = await new Parse.File('data.txt', { base64: BASE64 }).save();
    const copy = Parse.File.fromJSON({ __type: 'File', name: file!.name(), url: file!.url() });
    assert.equal(await copy.getData(), BASE64);
  });

  it('a file attached to an object comes back as a Parse.File with the same name and url', async () => {
    const file = await new Parse.File('attached.txt', BYTES, 'text/plain').save();
    const className = unique('Doc');
    const doc = await new Parse.Object<Record<string, any>>(className, { file, files: [file] }).save();
    const back = await new Parse.Query(className).get(doc.id!);
    assert.ok(back.get('file') instanceof Parse.File);
    assert.equal(back.get('file').name(), file!.name());
    assert.equal(back.get('file').url(), file!.url());
    assert.equal(back.get('files')[0].url(), file!.url());
    const stored = await suite.app.get(`/1/classes/${className}/${doc.id}`, { key: 'master' });
    assert.deepEqual(stored.body.file, { __type: 'File', name: file!.name(), url: file!.url() });
    // An unsaved file is saved by the object's save.
    const unsaved = new Parse.File('on-save.txt', BYTES, 'text/plain');
    const other = await new Parse.Object<Record<string, any>>(className, { file: unsaved }).save();
    assert.ok(unsaved.url());
    assert.equal((await new Parse.Query(className).get(other.id!)).get('file').name(), unsaved.name());
    assert.equal((await download(unsaved)).body, TEXT);
  });

  it('destroy deletes the file with the master key; without it the server refuses and keeps it', async () => {
    const file = (await new Parse.File('doomed.txt', BYTES, 'text/plain').save())!;
    // Without the master key the SDK sends the application id alone, which carries no key: 903.
    const error = await sdkError(() => file.destroy({ useMasterKey: false }));
    assert.equal(error.code, 903, error.message);
    assert.equal((await download(file)).status, 200);
    await file.destroy();
    assert.equal((await download(file)).status, 404);
    // Deleting it again: the name no longer exists.
    assert.equal((await sdkError(() => file.destroy())).code, Parse.Error.OBJECT_NOT_FOUND);
  });

  it('an upload without a name is refused with 122', async () => {
    const error = await sdkError(async () => new Parse.File('', BYTES, 'text/plain').save());
    assert.equal(error.code, Parse.Error.INVALID_FILE_NAME, error.message);
  });
});
