import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

/**
 * Layers inside each service (STYLE.md, "A request's way through"): transport -> use cases ->
 * domain. Adapters (persistence, clients, tools, engine, jobs, ...) implement the ports the use
 * cases need and never import a use case or the transport; main.ts wires them together. The domain
 * imports no other layer. In the gateway, the route helpers (http/) and clients/ sit below the
 * middleware and the routes. Specs and testing/ fakes may reach across to wire things up.
 */
function layerRules() {
  const importing = (folders) => `^\\.{1,2}/(.*/)?(${folders.join('|')})(/|$)`;
  const restrict = (files, regex, message) => ({
    files,
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex, message }] }] },
  });
  const adapters = [
    'persistence',
    'clients',
    'tools',
    'engine',
    'jobs',
    'workers',
    'http',
    'embeddings',
    'llm',
    'search',
    'security',
    'delivery',
  ];
  const inService = (folders) => folders.map((folder) => `services/*/src/${folder}/**/*.ts`);
  const gateway = (folders) => folders.map((folder) => `services/gateway/src/${folder}/**/*.ts`);
  return [
    restrict(inService(['domain']), '^\\.\\./', 'domain/ imports no other layer: move the shared piece into domain/.'),
    restrict(inService(['use-cases']), importing(['transport']), 'use cases never import the transport.'),
    restrict(
      inService(adapters),
      importing(['use-cases', 'transport']),
      'an adapter implements a port and never imports a use case or the transport: take the use case as a function or port that main.ts binds.',
    ),
    restrict(
      gateway(['http', 'clients']),
      importing(['middleware', 'routes', 'mcp', 'openapi']),
      'http/ and clients/ sit below the middleware and the routes: move the shared piece down, or define a port here.',
    ),
    restrict(gateway(['middleware']), importing(['routes', 'mcp', 'openapi']), 'middleware never imports the routes.'),
  ];
}

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    ignores: [
      '**/dist',
      '**/node_modules',
      '**/generated',
      'deploy/local/.cache',
      'bench/results',
      '**/jest.config.js',
    ],
  },
  {
    files: ['**/*.ts'],
    rules: {
      // Apps (services) may use libraries; libraries only other libraries; no app imports an app.
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...layerRules(),
  {
    // e2e tests read the JSON answers of a running platform and assert on any path in them; the
    // harness hands those answers over untyped. Production code never does.
    files: ['**/test/**/*.ts', 'packages/testing/src/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettier,
];
