// Restarts the FerretDB that infra.sh started (its pid in .run/ferretdb.pid) when it stops answering. FerretDB 1.24
// can hang under batch loads, still accepting connections, so a port check is not enough: every
// FERRETDB_WATCH_INTERVAL seconds this sends a MongoDB ping (the handshake included, FERRETDB_WATCH_TIMEOUT seconds for
// all of it), and after FERRETDB_WATCH_FAILURES unanswered in a row it ends that process (lib.sh's stop_pid: SIGTERM,
// SIGKILL after FERRETDB_WATCH_STOP_GRACE seconds) and starts FerretDB again as infra.sh does (start_ferretdb). A
// FerretDB that these scripts did not start is never touched: then this exits at once. up.sh runs it in the
// background. A restart runs synchronously, so SIGTERM and SIGINT end the watch between rounds, never in a restart.
const { spawnSync } = require('node:child_process');
const { dirname, join } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

const log = (line) => process.stderr.write(`[ferretdb-watch] ${line}\n`);
const say = (line) => log(`${new Date().toTimeString().slice(0, 8)} ${line}`);
function setting(name, fallback, pattern, what) {
  const value = process.env[name] ?? fallback;
  if (!pattern.test(value)) {
    log(`ERROR: ${name} must be ${what}, got '${value}'`);
    process.exit(1);
  }
  return Number(value);
}
const seconds = /^[0-9]+([.][0-9]+)?$/;
const interval = setting('FERRETDB_WATCH_INTERVAL', '10', seconds, 'a number of seconds (0 turns the watch off)');
const timeout = setting('FERRETDB_WATCH_TIMEOUT', '5', /^(?!0*([.]0*)?$)[0-9]+([.][0-9]+)?$/, 'seconds above 0');
const failures = setting('FERRETDB_WATCH_FAILURES', '2', /^[1-9][0-9]*$/, 'a whole number above 0');
const grace = setting('FERRETDB_WATCH_STOP_GRACE', '5', /^[1-9][0-9]*$/, 'a whole number of seconds above 0');
const port = process.env.FERRETDB_PORT || '27017';

/** Runs a lib.sh function (its log on this watch's stderr): its output, or null when it failed. */
function lib(command, ...args) {
  const bash = ['-c', `source "$0" && ${command} "$@"`, join(__dirname, 'lib.sh'), ...args];
  const r = spawnSync('bash', bash, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

// The driver libs/db uses (through mongoose).
const mongoose = require.resolve('mongoose', { paths: [join(__dirname, '..', 'libs', 'db')] });
const { MongoClient } = require(require.resolve('mongodb', { paths: [dirname(mongoose)] }));

/** Null when FerretDB answers a ping within the timeout (the client's reconnection included), else why not. */
async function ping(client) {
  const late = sleep(timeout * 1000 + 500).then(() => ({ late: true }));
  try {
    const reply = await Promise.race([client.db('admin').command({ ping: 1 }), late]);
    if (reply.late) return `no answer within ${timeout} s`;
    return reply.ok === 1 ? null : `ping answered ${JSON.stringify(reply)}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function restart() {
  const pid = lib('ferretdb_started_pid');
  if (pid) {
    say(`stopping FerretDB (pid ${pid})`);
    if (lib('stop_pid', pid, String(grace)) === null)
      return say(`FerretDB (pid ${pid}) did not end; trying again at the next failed ping`);
  } else if (lib('port_open', port) !== null) {
    return say(`port ${port} is held by a process these scripts did not start: left alone`);
  } else say('FerretDB (its pid file) is gone');
  const started = lib('start_ferretdb && cat "$RUN_DIR/ferretdb.pid"');
  say(started ? `FerretDB restarted (pid ${started})` : 'FerretDB did not start again (its log: ferretdb.log)');
}

async function watch() {
  if (interval === 0) return log('FerretDB watch off (FERRETDB_WATCH_INTERVAL=0)');
  const pid = lib('ferretdb_started_pid');
  if (!pid) return log(`FerretDB on 127.0.0.1:${port} was not started by these scripts (ferretdb.pid): not watched`);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
  const ms = timeout * 1000;
  const options = { serverSelectionTimeoutMS: ms, connectTimeoutMS: ms, socketTimeoutMS: ms, maxPoolSize: 1 };
  const client = new MongoClient(`mongodb://127.0.0.1:${port}`, { directConnection: true, ...options });
  log(
    `watching FerretDB (pid ${pid}): a ping every ${interval}s, restarted after ${failures} unanswered (${timeout}s)`,
  );
  for (let failed = 0; ;) {
    await sleep(interval * 1000);
    const why = await ping(client);
    if (why === null && failed > 0) say('FerretDB answers again');
    if (why === null) failed = 0;
    else say(`FerretDB ping failed (${++failed}/${failures}): ${why.slice(0, 300)}`);
    if (failed >= failures) {
      restart();
      failed = 0;
    }
  }
}
void watch();
