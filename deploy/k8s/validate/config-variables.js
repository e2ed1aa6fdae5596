// @ts-check
'use strict';
/**
 * The config-variable tables: what each service's config.ts reads, against what a deployment names.
 */
const fs = require('node:fs');
const path = require('node:path');
const { REPO } = require('./tools.js');

/** Variables intentionally left to their defaults in every deployment. */
const ENV_ALLOW_UNSET = new Set([
  // Makes a process exit when its stdin closes: for `npm start` and the test harness only.
  'EXIT_WITH_PARENT',
  // Retired (docs/security.md): read only to migrate signing keys an older release stored under
  // it; new deployments leave it unset, compose no longer passes it.
  'JWT_KEY_ENCRYPTION_SECRET',
]);
/** Variables a deployment may set that no config.ts reads (read by Node.js itself, or glibc's malloc). */
const ENV_RUNTIME = new Set(['NODE_OPTIONS', 'NODE_ENV', 'TZ', 'MALLOC_TRIM_THRESHOLD_', 'MALLOC_ARENA_MAX']);

/**
 * The environment schema a service's config.ts exports (`configShape`; the gateway's is
 * `gatewayEnvShape`), from its built module: the same object the service parses its env with.
 */
function configShapeOf(service, repo = REPO) {
  const dist = path.join(repo, 'services', service, 'dist/config.js');
  if (!fs.existsSync(dist))
    throw new Error(`${path.relative(repo, dist)} missing: build the services first (npm run build)`);
  const mod = require(dist);
  const name = Object.keys(mod).find((key) => key === 'configShape' || /EnvShape$/.test(key));
  if (!name) throw new Error(`${path.relative(repo, dist)} exports no configShape`);
  return mod[name];
}

/** service -> Set of variable names its config schema reads. */
function codeVariables(repo = REPO) {
  const services = new Map();
  for (const service of fs.readdirSync(path.join(repo, 'services')).sort()) {
    if (!fs.existsSync(path.join(repo, 'services', service, 'src/config.ts'))) continue;
    services.set(service, new Set(Object.keys(configShapeOf(service, repo))));
  }
  return services;
}

/** Compares what a deployment names for each service with what the code reads. */
function compareEnv(where, code, named) {
  const errors = [];
  for (const [service, vars] of code) {
    const have = named.get(service);
    if (!have) {
      errors.push(`${where}: no ${service} process`);
      continue;
    }
    const missing = [...vars].filter((v) => !have.has(v) && !ENV_ALLOW_UNSET.has(v));
    if (missing.length)
      errors.push(
        `${where}: ${service} does not set ${missing.join(', ')} (read by services/${service}/src/config.ts)`,
      );
    const unknown = [...have].filter((v) => !vars.has(v) && !ENV_RUNTIME.has(v));
    if (unknown.length)
      errors.push(`${where}: ${service} sets ${unknown.join(', ')}, which its config.ts does not read`);
  }
  return errors;
}

module.exports = { ENV_ALLOW_UNSET, configShapeOf, codeVariables, compareEnv };
