'use strict';
/**
 * PostGraphile v4 over the bench database's read tables, as a user would run it in front of them:
 * `node server.cjs <databaseUrl> <port> [jwtSecret]`. With a secret, every request must carry an
 * HS256 JWT (audience `postgraphile`), verified and handed to PostgreSQL as settings in a
 * transaction of its own, as PostGraphile does; without one, nothing is checked. Says `listening`
 * on its IPC channel (or stdout) once it answers.
 */
const http = require('node:http');
const { postgraphile } = require('postgraphile');

const [databaseUrl, port, jwtSecret] = process.argv.slice(2);
if (!databaseUrl || !port) {
  process.stderr.write('usage: node server.cjs <databaseUrl> <port> [jwtSecret]\n');
  process.exit(2);
}
const middleware = postgraphile(databaseUrl, 'public', {
  graphqlRoute: '/graphql',
  disableQueryLog: true,
  ignoreRBAC: true,
  watchPg: false,
  retryOnInitFail: false,
  enableQueryBatching: false,
  ...(jwtSecret ? { jwtSecret, jwtVerifyOptions: { algorithms: ['HS256'] } } : {}),
});
http.createServer(middleware).listen(Number(port), '127.0.0.1', () => {
  if (process.send) process.send('listening');
  else process.stdout.write('listening\n');
});
