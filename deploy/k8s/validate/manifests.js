// @ts-check
'use strict';
/**
 * The rendered Kubernetes overlays, compose.yaml and the Dockerfile: schemas, workload checks and
 * the variables each names.
 */
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { CACHE, sh, VERSIONS } = require('./tools.js');

/**
 * Stand-ins for variables compose.yaml requires (`${VAR:?...}`), so the file can be loaded
 * without the real secrets; the rest of the shell's environment is not passed, so the result
 * does not depend on who runs the check.
 */
const COMPOSE_REQUIRED_PLACEHOLDERS = { DATA_ENCRYPTION_KEY: 'validate:placeholder' };

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

module.exports = { render, kubeconform, podSpecChecks, k8sVariables, composeVariables, dockerfileChecks };
