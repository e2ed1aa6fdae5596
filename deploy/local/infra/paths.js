// @ts-check
'use strict';
/**
 * Where the local infrastructure's sources and downloads live.
 */

const path = require('node:path');

/** deploy/local: the poms, the Java launchers and the default cache and data folders. */
const HERE = path.resolve(__dirname, '..');
const REPO_ROOT = path.resolve(HERE, '..', '..');
const CACHE = process.env.LOCALINFRA_CACHE_DIR
  ? path.resolve(process.env.LOCALINFRA_CACHE_DIR)
  : path.join(HERE, '.cache');
const M2_REPO = path.join(CACHE, 'm2');
const CLASSES_DIR = path.join(CACHE, 'classes');
const JAVA_SRC_DIR = path.join(HERE, 'java');
const COMPONENTS = {
  kafka: { pom: path.join(HERE, 'maven', 'kafka', 'pom.xml'), libs: path.join(CACHE, 'kafka', 'libs') },
  mongo: { pom: path.join(HERE, 'maven', 'mongo', 'pom.xml'), libs: path.join(CACHE, 'mongo', 'libs') },
};

module.exports = { HERE, REPO_ROOT, CACHE, M2_REPO, CLASSES_DIR, JAVA_SRC_DIR, COMPONENTS };
