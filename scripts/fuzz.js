// @ts-check
'use strict';
/**
 * `npm run fuzz`: the contract fuzzer. Starts a whole platform (as `npm run bench` does), registers
 * a user with an API key holding every scope, and runs Schemathesis over every operation of the
 * OpenAPI document, once with the access token and once with the API key. Fails on any 5xx or any
 * answer the document does not describe.
 *
 * Schemathesis comes from PyPI into an ignored virtual environment (.cache/fuzz-venv), pinned.
 * FUZZ_MAX_EXAMPLES (default 25) sets the cases per operation; FUZZ_SKIP_BUILD=1 reuses the build.
 */
const { spawn, spawnSync } = require('node:child_process');
const readline = require('node:readline');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
require('./ensure-install').ensureInstalled();
const { build, startLocalPlatform } = require('./local-platform');

const SCHEMATHESIS = 'schemathesis==4.32.5';
const VENV = path.join(ROOT, '.cache', 'fuzz-venv');
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES ?? '25';

/** @param {string} line */
const log = (line) => console.log(`[fuzz] ${line}`);

/** @param {string} command @param {string[]} args */
function run(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  return result.status ?? 1;
}

/**
 * Schemathesis closes with a pytest-style banner (`=== 4 warnings in 66.78s ===`). A CI that reads
 * test runners' closing lines takes that banner for pytest running no test, so its banners are
 * printed as plain text: `[schemathesis] 4 warnings (66.78 s)`. Everything else passes unchanged.
 * @param {string} line
 */
function unbanner(line) {
  const banner = /^=+ (.+?) =+$/.exec(line);
  if (!banner) return line;
  return `[schemathesis] ${banner[1].replace(/ in ([\d.]+)s$/, ' ($1 s)')}`;
}

/**
 * Runs Schemathesis with its output rewritten by `unbanner`. @param {string} command @param {string[]} args
 * @returns {Promise<number>} its exit status
 */
function runSchemathesis(command, args) {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) });
  lines.on('line', (line) => console.log(unbanner(line)));
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(error);
      resolve(1);
    });
    child.on('close', (status) => resolve(status ?? 1));
  });
}

function installSchemathesis() {
  const st = path.join(VENV, 'bin', 'schemathesis');
  const marker = path.join(VENV, 'installed.txt');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === SCHEMATHESIS) return st;
  log(`installing ${SCHEMATHESIS} into ${path.relative(ROOT, VENV)}`);
  fs.rmSync(VENV, { recursive: true, force: true });
  if (run('python3', ['-m', 'venv', VENV]) !== 0) throw new Error('python3 -m venv failed');
  if (run(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', SCHEMATHESIS]) !== 0) {
    throw new Error(`pip could not install ${SCHEMATHESIS}`);
  }
  fs.writeFileSync(marker, `${SCHEMATHESIS}\n`);
  return st;
}

/**
 * @param {string} url @param {string} method @param {string} pathname @param {unknown} body @param {Record<string,string>} headers
 * @returns {Promise<Record<string, string>>} the JSON answer (the fields read here are strings)
 */
async function call(url, method, pathname, body, headers = {}) {
  const res = await fetch(new URL(pathname, url), {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = /** @type {Record<string, string>} */ (await res.json());
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function main() {
  const st = installSchemathesis();
  if (process.env.FUZZ_SKIP_BUILD === '1') log('using the existing build (FUZZ_SKIP_BUILD=1)');
  else build(log);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplatform-fuzz-'));
  const { platform, stop } = await startLocalPlatform({
    work,
    log,
    // Unlimited rates, so that the fuzzer sees the API's answers rather than 429s.
    env: { LOG_LEVEL: 'warn', DEFAULT_PLAN: 'enterprise', WEBHOOK_ALLOW_PRIVATE_URLS: 'false' },
  });
  let failed = 0;
  try {
    const email = `fuzz-${Date.now()}@example.com`;
    const password = 'fuzz-password-1';
    await call(platform.url, 'POST', '/api/v1/auth/register', { email, password });
    const form = new URLSearchParams({ username: email, password }).toString();
    const token = (
      await call(platform.url, 'POST', '/api/v1/auth/login', form, {
        'content-type': 'application/x-www-form-urlencoded',
      })
    ).access_token;
    // Every scope there is, from the one list the services use.
    const { SCOPES: scopes } = require(path.join(ROOT, 'packages/service-kit/dist'));
    const key = (
      await call(
        platform.url,
        'POST',
        '/api/v1/auth/api-keys',
        { name: 'fuzz', scopes },
        { authorization: `Bearer ${token}` },
      )
    ).key;
    for (const [label, credential] of [
      ['access token', token],
      ['API key', key],
    ]) {
      log(`schemathesis with the ${label}, ${MAX_EXAMPLES} cases per operation`);
      const status = await runSchemathesis(st, [
        'run',
        `${platform.url}/api/v1/openapi.json`,
        '--checks',
        'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
        '--max-examples',
        MAX_EXAMPLES,
        // One worker: with two, Python 3.11's ast (which Hypothesis calls to describe its filters)
        // may fail with "AST constructor recursion depth mismatch" across threads (CPython gh-106905).
        '--workers',
        '1',
        '--seed',
        process.env.FUZZ_SEED ?? '1',
        '--generation-database',
        'none',
        '--request-timeout',
        '40',
        '--no-color',
        '--header',
        `Authorization: Bearer ${credential}`,
      ]);
      if (status !== 0) failed++;
    }
  } finally {
    await stop();
  }
  if (failed > 0) {
    log(`schemathesis found problems in ${failed} of 2 runs (see above)`);
    process.exit(1);
  }
  log('no server errors and no responses outside the document');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
