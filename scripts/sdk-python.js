#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Generates the Python SDK's client (packages/sdk-python/src/agentplatform/generated) from the
 * gateway's OpenAPI document with openapi-python-client (PyPI, pinned, in the ignored virtual
 * environment .cache/sdk-python-venv, installed on first use). `--check` fails instead of writing
 * when the generated client is not current (npm test), like scripts/sdk-types.js.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { openApiDocument } = require('./openapi-document');

const ROOT = path.resolve(__dirname, '..');
const PACKAGE = path.join(ROOT, 'packages/sdk-python');
const TARGET = path.join(PACKAGE, 'src/agentplatform/generated');
const GENERATOR = 'openapi-python-client==0.29.1';
const VENV = path.join(ROOT, '.cache', 'sdk-python-venv');

/** @param {string} command @param {string[]} args */
function run(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
}

function generator() {
  const bin = path.join(VENV, 'bin', 'openapi-python-client');
  const marker = path.join(VENV, 'installed.txt');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === GENERATOR) return bin;
  fs.rmSync(VENV, { recursive: true, force: true });
  run('python3', ['-m', 'venv', VENV]);
  run(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', GENERATOR]);
  fs.writeFileSync(marker, `${GENERATOR}\n`);
  return bin;
}

/**
 * The document as the Python client is generated from: without the paths served under a base of
 * their own (`/openai/v1`: the generated client calls every path relative to `/api/v1`, and
 * OpenAI's own `openai` package is the client for those, docs/openai-compatibility.md), and with
 * one content type per request body, the first (openapi-python-client 0.29.1 writes a body of
 * several types with a name it does not import).
 * @param {any} document
 */
function forPython(document) {
  /** @type {Record<string, any>} */
  const paths = {};
  for (const [name, item] of Object.entries(document.paths)) {
    if (item.servers) continue;
    paths[name] = Object.fromEntries(
      Object.entries(item).map(([method, op]) => {
        const content = op?.requestBody?.content;
        if (!content || Object.keys(content).length < 2) return [method, op];
        const [first] = Object.entries(content);
        return [method, { ...op, requestBody: { ...op.requestBody, content: Object.fromEntries([first]) } }];
      }),
    );
  }
  return { ...document, paths };
}

/** Every file under `dir` (relative path -> content). @param {string} dir */
function files(dir) {
  /** @type {Map<string, string>} */
  const out = new Map();
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.parentPath.includes('__pycache__')) continue;
    const full = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, full), fs.readFileSync(full, 'utf8'));
  }
  return out;
}

function main() {
  const check = process.argv.includes('--check');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-python-'));
  try {
    const spec = path.join(work, 'openapi.json');
    fs.writeFileSync(spec, JSON.stringify(forPython(openApiDocument())));
    const out = path.join(work, 'generated');
    const config = path.join(PACKAGE, 'openapi-python-client.yaml');
    run(generator(), ['generate', '--path', spec, '--output-path', out, '--meta', 'none', '--config', config]);
    const fresh = files(out);
    const current = files(TARGET);
    const same = fresh.size === current.size && [...fresh].every(([name, text]) => current.get(name) === text);
    if (same) return;
    if (check) {
      console.error('packages/sdk-python is not current: run `node scripts/sdk-python.js` and commit it.');
      process.exit(1);
    }
    fs.rmSync(TARGET, { recursive: true, force: true });
    fs.cpSync(out, TARGET, { recursive: true });
    console.log(`wrote ${path.relative(ROOT, TARGET)} (${fresh.size} files)`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main();
