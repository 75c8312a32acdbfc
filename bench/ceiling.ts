/**
 * The ceiling: the most a single Node process on this machine answers with no framework and no
 * database. Basalt's numbers are read as fractions of this one, so it runs exactly like Basalt
 * does (its own child process, started through tsx) to keep the comparison fair.
 */
import { createServer } from 'node:http';

const body = JSON.stringify({ objectId: 'ceiling000', createdAt: '2026-01-01T00:00:00.000Z', score: 1 });
const port = Number(process.env.BASALT_PORT ?? 0);
const host = process.env.BASALT_HOST ?? '127.0.0.1';

const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(port, host);

// The bench stops its children with SIGTERM; exiting at once matches what Basalt does when idle.
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
