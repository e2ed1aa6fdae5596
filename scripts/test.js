#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `npm test`: builds, lints and type-checks (specs included) every project (Nx, cached), validates the deploy manifests, then
 * checks formatting, runs the whole jest suite once: the global setup starts the real infrastructure a single time
 * for all projects. Extra arguments go to jest (e.g. `npm test -- services/identity`).
 */
const path = require('node:path');
const { ROOT, run, runJest } = require('./run-step');

require('./ensure-install').ensureInstalled();

const nx = require.resolve('nx/bin/nx');
// typecheck: each project's tsconfig.json, specs and test/ included (jest only strips the types).
run(process.execPath, [nx, 'run-many', '-t', 'build', 'lint', 'typecheck', '--outputStyle=static']);
// deploy/, scripts/ and bench/ are no Nx project: lint them and type-check their `// @ts-check` files.
// eslint's package exports no bin path: find the script beside its package.json.
const eslint = path.join(path.dirname(require.resolve('eslint/package.json')), 'bin', 'eslint.js');
run(process.execPath, [eslint, 'deploy', 'scripts', 'bench', 'jest.preset.js', 'jest.unit.config.js']);
run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.tools.json')]);
run(process.execPath, [require.resolve('prettier/bin/prettier.cjs'), '--check', '--log-level=warn', '.']);
run(process.execPath, [path.join(ROOT, 'scripts/sdk-types.js'), '--check']);
run(process.execPath, [path.join(ROOT, 'scripts/sdk-python.js'), '--check']);
run(process.execPath, [path.join(ROOT, 'deploy/k8s/validate.js')]);
// The global setup fetches the Kafka and MongoDB stand-in artifacts too, but quietly: fetch them
// here first so that a fresh machine shows its progress.
if (!process.env.MONGODB_URI || !process.env.KAFKA_BROKERS)
  run(process.execPath, [path.join(ROOT, 'deploy/local/infra.js'), 'fetch']);
runJest(['--maxWorkers=2', ...process.argv.slice(2)]);
