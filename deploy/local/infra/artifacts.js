// @ts-check
'use strict';
/**
 * Fetching the jars (Maven) into the cache and compiling the Java launchers, once per content.
 */

const fs = require('node:fs');
const path = require('node:path');
const { CACHE, CLASSES_DIR, COMPONENTS, JAVA_SRC_DIR, M2_REPO, REPO_ROOT } = require('./paths.js');
const { javacBin, log, readIfExists, run, sha256, sleep } = require('./helpers.js');

async function withLock(lockDir, fn) {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  const deadline = Date.now() + 15 * 60 * 1000;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
      // Stale lock (a fetch that died): older than 15 minutes.
      try {
        if (Date.now() - fs.statSync(lockDir).mtimeMs > 15 * 60 * 1000)
          fs.rmSync(lockDir, { recursive: true, force: true });
      } catch {
        /* raced with its removal */
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockDir}`);
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

function componentKey(name) {
  return sha256(fs.readFileSync(COMPONENTS[name].pom));
}

function classesKey() {
  const files = fs
    .readdirSync(path.join(JAVA_SRC_DIR, 'localinfra'))
    .filter((f) => f.endsWith('.java'))
    .sort();
  return sha256(
    componentKey('mongo'),
    ...files.map((f) => f + '\0' + fs.readFileSync(path.join(JAVA_SRC_DIR, 'localinfra', f), 'utf8')),
  );
}

function markerFile(dir) {
  return path.join(dir, '.localinfra-key');
}

function upToDate(dir, key) {
  return readIfExists(markerFile(dir)) === key;
}

function artifactsReady() {
  return (
    upToDate(COMPONENTS.kafka.libs, componentKey('kafka')) &&
    upToDate(COMPONENTS.mongo.libs, componentKey('mongo')) &&
    upToDate(CLASSES_DIR, classesKey())
  );
}

let fetchPromise = null;

/**
 * Download the Kafka and mongo-java-server jars (Maven Central) into deploy/local/.cache and compile
 * the Java launchers. Runs Maven/javac only when a pom or a launcher source changed since the last
 * successful run (marker files keyed by content hashes), so a warm call takes milliseconds.
 */
function fetchArtifacts({ quiet = false } = {}) {
  if (artifactsReady()) return Promise.resolve();
  if (!fetchPromise) {
    fetchPromise = withLock(path.join(CACHE, '.fetch.lock'), () => doFetch(quiet)).finally(() => {
      fetchPromise = null;
    });
  }
  return fetchPromise;
}

async function doFetch(quiet) {
  const mvn = process.env.LOCALINFRA_MVN || 'mvn';
  for (const name of Object.keys(COMPONENTS)) {
    const { pom, libs } = COMPONENTS[name];
    const key = componentKey(name);
    if (upToDate(libs, key)) continue;
    log(quiet, `fetching ${name} jars with Maven (${path.relative(REPO_ROOT, pom)}) ...`);
    const t0 = Date.now();
    fs.rmSync(libs, { recursive: true, force: true });
    const args = [
      '-B',
      '--no-transfer-progress',
      '-Dstyle.color=never',
      '-f',
      pom,
      `-Dmaven.repo.local=${M2_REPO}`,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${libs}`,
    ];
    // Maven's own output is only shown (its tail) when it fails.
    await run(mvn, ['-q', ...args], { quiet: true, cwd: path.dirname(pom) });
    fs.writeFileSync(markerFile(libs), key);
    log(quiet, `${name} jars ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  }
  const key = classesKey();
  if (!upToDate(CLASSES_DIR, key)) {
    log(quiet, 'compiling launchers (deploy/local/java) ...');
    fs.rmSync(CLASSES_DIR, { recursive: true, force: true });
    fs.mkdirSync(CLASSES_DIR, { recursive: true });
    const sources = fs
      .readdirSync(path.join(JAVA_SRC_DIR, 'localinfra'))
      .filter((f) => f.endsWith('.java'))
      .map((f) => path.join(JAVA_SRC_DIR, 'localinfra', f));
    await run(
      javacBin(),
      ['-nowarn', '--release', '17', '-d', CLASSES_DIR, '-cp', path.join(COMPONENTS.mongo.libs, '*'), ...sources],
      { quiet },
    );
    fs.writeFileSync(markerFile(CLASSES_DIR), key);
  }
}

module.exports = { fetchArtifacts };
