// @ts-check
'use strict';
/**
 * The self-check: broken copies of the deploy tree, each of which must fail validation.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

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

/**
 * Breaks copies of the `real` deploy tree one file at a time; `validate` must fail on each with
 * the error its case names.
 */
function selfCheck(tools, real, validate) {
  let passed = 0;
  let failed = 0;
  for (const breakage of BREAKAGES) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-selfcheck-'));
    try {
      fs.cpSync(real.k8sDir, path.join(dir, 'k8s'), {
        recursive: true,
        filter: (src) => !src.includes(`${path.sep}.cache`),
      });
      fs.copyFileSync(real.composeFile, path.join(dir, 'compose.yaml'));
      fs.copyFileSync(real.docsFile, path.join(dir, 'configuration.md'));
      fs.copyFileSync(real.dockerfile, path.join(dir, 'Dockerfile'));
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

module.exports = { selfCheck };
