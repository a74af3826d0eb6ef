// A MongoDB-protocol ping: `node scripts/ferretdb-ping.js [uri] [timeoutMs]` exits 0 when the server answers
// { ping: 1 } within timeoutMs (default 5000), 1 otherwise, with the reason on stderr. A port check is not enough:
// a hung FerretDB still accepts connections and never answers. The FerretDB watch of up.sh (ferretdb-watch.sh) runs it.
const { dirname, join } = require('node:path');
const { setTimeout } = require('node:timers');

const [uri = 'mongodb://127.0.0.1:27017', timeoutArg = '5000'] = process.argv.slice(2);
const timeoutMs = Number(timeoutArg);
const fail = (why) => {
  process.stderr.write(`${why}\n`);
  process.exit(1);
};
if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) fail(`bad timeout ${timeoutArg} (milliseconds)`);

// The driver libs/db uses (through mongoose).
const mongoose = require.resolve('mongoose', { paths: [join(__dirname, '..', 'libs', 'db')] });
const { MongoClient } = require(require.resolve('mongodb', { paths: [dirname(mongoose)] }));

// Connecting (the handshake) can wait on a server that never answers too: the whole ping has one deadline.
setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs + 500);
const client = new MongoClient(uri, {
  directConnection: true,
  serverSelectionTimeoutMS: timeoutMs,
  connectTimeoutMS: timeoutMs,
  socketTimeoutMS: timeoutMs,
  maxPoolSize: 1,
});
client
  .db('admin')
  .command({ ping: 1 })
  .then(
    (reply) => (reply.ok === 1 ? process.exit(0) : fail(`ping answered ${JSON.stringify(reply)}`)),
    (err) => fail(err instanceof Error ? err.message : String(err)),
  );
