// ESLint flat config: typescript-eslint's recommended type-aware-free rules, plus the house rules
// that core/ stays pure (no vscode, ssh2, client-node, fs, child_process, net), that views/ (the
// views' models) stays VS Code-free and is read by the extension only, and that shared/ (the
// client-server contract and the settings' defaults) stays plain enough for both sides.
// A file matched by two blocks gets the later block's no-restricted-imports: each block lists all of
// its restrictions.
import tseslint from 'typescript-eslint';

/** Every folder outside core/ and shared/: the two inner layers may import none of them. */
const OUTER_LAYERS = [
  '**/cli/**',
  '**/server/**',
  '**/extension/**',
  '**/remote/**',
  '**/cluster/**',
  '**/bootstrap/**',
  '**/views/**',
];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.cache/**', 'bench/tmp/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'vscode',
                'ssh2',
                '@kubernetes/client-node',
                'fs',
                'node:fs',
                'child_process',
                'node:child_process',
                'net',
                'node:net',
                'fs/*',
                'node:fs/*',
              ],
              message: 'src/core is pure: it receives text and returns plain results.',
            },
            {
              group: OUTER_LAYERS,
              message: 'core must not depend on outer layers.',
            },
          ],
        },
      ],
    },
  },
  {
    // The Kubernetes client library, and with it every API path, belongs to src/cluster: plans, the
    // CLI and the extension call cluster/ (the extension's activation reads nothing of it either).
    files: ['src/extension/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@kubernetes/client-node'],
              message: 'Kubernetes API access lives in src/cluster; import from there.',
            },
          ],
        },
      ],
    },
  },
  {
    // The same, and the views' models are the extension's alone (the CLI prints, it shows no tree).
    files: ['src/bootstrap/**/*.ts', 'src/cli/**/*.ts', 'src/remote/**/*.ts', 'src/server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@kubernetes/client-node'],
              message: 'Kubernetes API access lives in src/cluster; import from there.',
            },
            { group: ['**/views/**'], message: 'src/views is read by src/extension only.' },
            {
              group: ['vscode'],
              message:
                'Only src/extension talks to VS Code: the engine, the CLI and the server report through callbacks and LSP.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cluster/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/views/**', '**/extension/**'],
              message: 'cluster/ feeds the views; it never depends on them.',
            },
            { group: ['vscode'], message: 'Only src/extension talks to VS Code.' },
          ],
        },
      ],
    },
  },
  {
    // The views' models: what each view shows, as plain items, testable without VS Code. They read the
    // cluster through src/cluster (never the client library), and know nothing of SSH or the engine.
    files: ['src/views/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['vscode', 'vscode-*', 'ssh2', '@kubernetes/client-node'],
              message: 'src/views is VS Code-free: plain items over core/ and cluster/.',
            },
            {
              group: ['**/cli/**', '**/server/**', '**/extension/**', '**/remote/**', '**/bootstrap/**'],
              message: 'views may import core/, cluster/ and shared/ only.',
            },
          ],
        },
      ],
      // API paths belong to the cluster module that owns the resource (nodePath, podPath, machineSetPath …).
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[value=/^\\/apis?\\//]',
          message: 'No API path in a view: use the path helper of the src/cluster module that owns the resource.',
        },
        {
          selector: 'TemplateElement[value.raw=/^\\/apis?\\//]',
          message: 'No API path in a view: use the path helper of the src/cluster module that owns the resource.',
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['vscode', 'vscode-*', 'ssh2', '@kubernetes/client-node'],
              message:
                'src/shared is read by the extension and the language server alike: plain types, names and defaults.',
            },
            {
              group: OUTER_LAYERS,
              message: 'shared must not depend on either side.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.{mjs,cjs,js}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', URL: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
