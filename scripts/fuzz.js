// @ts-check
'use strict';
/**
 * `npm run fuzz`: the contract fuzzer. Starts a whole platform (as `npm run bench` does) and runs
 * Schemathesis over every operation of the OpenAPI document twice: with the access token of a new
 * user, then with an API key holding every scope of another. Both tenants are on a plan whose
 * rates fit a run, so the answers are the API's, not the rate limiter's; each run reports how many
 * answers were 429. Fails on any 5xx, any answer the document does not describe, or a run in which
 * more than a tenth of the answers were 429.
 *
 * Schemathesis comes from PyPI into an ignored virtual environment (.cache/fuzz-venv), pinned.
 * FUZZ_MAX_EXAMPLES (default 25) sets the cases per operation; FUZZ_SKIP_BUILD=1 reuses the build.
 */
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
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
  // The fuzz run before this call may have spent the per-address limit of register and login
  // (AUTH_RATE_LIMIT_PER_MINUTE): a 429 is waited out as its Retry-After says, a few times.
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(new URL(pathname, url), {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = /** @type {Record<string, string>} */ (await res.json());
    if (res.ok) return json;
    const retryAfter = Number(res.headers.get('retry-after') ?? json.retry_after);
    if (res.status !== 429 || attempt >= 4 || !(retryAfter > 0)) {
      throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(json)}`);
    }
    console.log(`[fuzz] ${method} ${pathname} answered 429: waiting ${retryAfter} s as Retry-After says`);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 250));
  }
}

/**
 * What a run's answers were, from its HAR report: how many were 429 (the rate limits answering
 * instead of the API) and how many anything else, with the 429s' messages. A fuzz run that is
 * mostly 429s tests the limiter, not the API, so the count is printed with every run.
 * @param {string} harPath
 * @returns {{ total: number, limited: number, messages: Map<string, number> }}
 */
function tallyStatuses(harPath) {
  /** @type {{ log: { entries: Array<{ response: { status: number, content?: { text?: string } } }> } }} */
  const har = JSON.parse(fs.readFileSync(harPath, 'utf8'));
  const messages = new Map();
  let limited = 0;
  for (const { response } of har.log.entries) {
    if (response.status !== 429) continue;
    limited++;
    let message = '(no JSON body)';
    try {
      // Shape A (`{error, message}`) or shape B (`{success, error: {code, message}}`).
      const body = JSON.parse(response.content?.text ?? '');
      message = body.message ?? body.error?.message ?? message;
    } catch {
      // not JSON: keep the placeholder
    }
    const kind = message.replace(/retry in \d+ s/, 'retry in N s');
    messages.set(kind, (messages.get(kind) ?? 0) + 1);
  }
  return { total: har.log.entries.length, limited, messages };
}

/**
 * Share of a run's answers that may be 429 before the run fails: above it, the run tests the rate
 * limiters rather than the API. What remains are the per-address limits of register, login and
 * refresh (AUTH_RATE_LIMIT_PER_MINUTE), which no plan lifts.
 */
const MAX_LIMITED_SHARE = 0.1;

/**
 * The plan the fuzzer's tenants are put on: the first, in the shared list, whose request rates
 * fit a run (thousands of requests a minute from one caller), that is one without a rate limit.
 * @returns {string}
 */
function fuzzPlan() {
  /** @type {{ PLAN_NAMES: readonly string[], PLAN_RATE_LIMITS: Record<string, unknown> }} */
  const plans = require(path.join(ROOT, 'packages/service-kit/dist'));
  const plan = plans.PLAN_NAMES.find((name) => plans.PLAN_RATE_LIMITS[name] === null);
  if (!plan) throw new Error('no plan without a rate limit in service-kit: the fuzzer would fuzz the limiter');
  return plan;
}

/**
 * A new user whose tenant is on `plan`, and their access token. The plan is set in identity's
 * database before the tenant's first authenticated request (as the e2e tests' `tenantOnPlan`
 * does), so the gateway never sees the tenant on another plan; every other tenant keeps the
 * default plan. @param {any} platform @param {string} plan @returns {Promise<string>}
 */
async function newCaller(platform, plan) {
  const { MongoClient } = require('mongodb');
  const email = `fuzz-${crypto.randomUUID()}@example.com`;
  const password = 'fuzz-password-1';
  const user = await call(platform.url, 'POST', '/api/v1/auth/register', { email, password });
  const mongo = await MongoClient.connect(platform.mongoUri);
  try {
    const tenants = mongo.db(platform.database('identity')).collection('tenants');
    const set = await tenants.updateOne({ _id: /** @type {any} */ (user.tenant_id) }, { $set: { plan } });
    if (set.matchedCount !== 1) throw new Error(`tenant ${user.tenant_id} not found in identity's database`);
  } finally {
    await mongo.close();
  }
  const form = new URLSearchParams({ username: email, password }).toString();
  const login = await call(platform.url, 'POST', '/api/v1/auth/login', form, {
    'content-type': 'application/x-www-form-urlencoded',
  });
  return login.access_token;
}

/** An API key holding every scope there is (the one list the services use). @param {string} url @param {string} token */
async function newApiKey(url, token) {
  const { SCOPES: scopes } = require(path.join(ROOT, 'packages/service-kit/dist'));
  const created = await call(
    url,
    'POST',
    '/api/v1/auth/api-keys',
    { name: 'fuzz', scopes },
    { authorization: `Bearer ${token}` },
  );
  return created.key;
}

async function main() {
  const st = installSchemathesis();
  if (process.env.FUZZ_SKIP_BUILD === '1') log('using the existing build (FUZZ_SKIP_BUILD=1)');
  else build(log);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplatform-fuzz-'));
  const plan = fuzzPlan();
  const { platform, stop } = await startLocalPlatform({
    work,
    log,
    // The production default for every tenant but the fuzzer's own (newCaller).
    env: { LOG_LEVEL: 'warn', DEFAULT_PLAN: 'free', ALLOW_PRIVATE_URLS: 'false' },
  });
  /** @type {string[]} */
  const problems = [];
  try {
    // Each run gets a tenant of its own, made just before it: a run's stateful phase lists and
    // revokes what it finds (API keys, sessions), and must not revoke the next run's credentials.
    /** @type {Array<[string, string, () => Promise<string>]>} */
    const runs = [
      ['access token', 'token.har', () => newCaller(platform, plan)],
      ['API key', 'api-key.har', async () => newApiKey(platform.url, await newCaller(platform, plan))],
    ];
    for (const [label, file, credentials] of runs) {
      const credential = await credentials();
      log(`schemathesis with the ${label} of a tenant on the ${plan} plan, ${MAX_EXAMPLES} cases per operation`);
      const started = Date.now();
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
        '--report',
        'har',
        '--report-har-path',
        path.join(work, file),
      ]);
      if (status !== 0) problems.push(`schemathesis found problems with the ${label} (see above)`);
      const { total, limited, messages } = tallyStatuses(path.join(work, file));
      const seconds = Math.round((Date.now() - started) / 1000);
      log(`${label}: ${total} responses in ${seconds} s, ${limited} were 429 and ${total - limited} other`);
      for (const [message, count] of messages) log(`  ${count} x 429 "${message}"`);
      if (limited > total * MAX_LIMITED_SHARE) {
        problems.push(`${limited} of ${total} answers with the ${label} were 429: the run fuzzed the rate limits`);
      }
    }
  } finally {
    await stop();
  }
  if (problems.length > 0) {
    for (const problem of problems) log(problem);
    process.exit(1);
  }
  log('no server errors and no responses outside the document');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
