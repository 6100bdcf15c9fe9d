import js from '@eslint/js'
import {createTypeScriptImportResolver} from 'eslint-import-resolver-typescript'
import importX from 'eslint-plugin-import-x'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * The floors of src/lib, each above the ones it may use: a folder never imports one of the
 * folders named for it (nor cli/, render/, commands/, the sandbox or prompts: see DOMAIN).
 */
const BELOW = {
  reconcile: [],
  refunds: ['reconcile'],
  orders: ['refunds', 'reconcile'],
  profiles: ['orders', 'refunds', 'reconcile', 'notify'],
  notify: ['orders', 'refunds', 'reconcile', 'profiles'],
  files: ['orders', 'refunds', 'reconcile', 'notify', 'profiles', 'store'],
  store: ['orders', 'refunds', 'reconcile', 'notify', 'profiles', 'files'],
  gateway: ['orders', 'refunds', 'reconcile', 'notify', 'profiles', 'files', 'store'],
  io: ['orders', 'refunds', 'reconcile', 'notify', 'profiles', 'files', 'store', 'gateway'],
}
/** What no domain folder imports: the command line and its views, the sandbox, prompts. */
const DOMAIN = ['cli', 'render', 'commands', 'sandbox']
const PROMPTS = "Prompts are the command line's (src/lib/cli/): a domain folder takes an asker as a port."

const layer = (folder, above) => ({
  files: [`src/lib/${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [{name: '@inquirer/prompts', message: PROMPTS}],
        patterns: [
          {
            regex: `^(\\.\\./)+(${[...DOMAIN, ...above].join('|')})/`,
            message: `src/lib/${folder}/ stands below ${[...DOMAIN, ...above].join(', ')}: it never imports them (eslint.config.js, BELOW).`,
          },
        ],
      },
    ],
    'no-restricted-syntax': [
      'error',
      {selector: "ImportExpression[source.value='@inquirer/prompts']", message: PROMPTS},
    ],
  },
})

export default tseslint.config(
  {ignores: ['dist/**', 'build/**', 'node_modules/**', 'oclif.manifest.json', 'coverage/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {globals: globals.node},
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
      'no-console': 'off',
    },
  },
  {
    // No circle of imports anywhere in gw's code.
    files: ['src/**/*.ts'],
    plugins: {'import-x': importX},
    settings: {'import-x/resolver-next': [createTypeScriptImportResolver()]},
    rules: {'import-x/no-cycle': ['error', {ignoreExternal: true}]},
  },
  // A command reads like its help; its run beside it (create.run.ts) and a module of src/lib hold one idea.
  {
    files: ['src/commands/**/*.ts'],
    ignores: ['src/commands/**/*.run.ts'],
    rules: {'max-lines': ['error', {max: 80, skipBlankLines: true, skipComments: true}]},
  },
  {
    files: ['src/lib/**/*.ts', 'src/commands/**/*.run.ts'],
    rules: {'max-lines': ['error', {max: 400, skipBlankLines: true, skipComments: true}]},
  },
  ...Object.entries(BELOW).map(([folder, above]) => layer(folder, above)),
  {
    // Views never reach back into the command line.
    files: ['src/lib/render/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {regex: '^(\\.\\./)+(cli|commands)/', message: 'A view takes what it shows; it never imports cli/.'},
          ],
        },
      ],
    },
  },
  {
    // The single executable's launcher runs as CommonJS inside Node's SEA, where require is the loader.
    files: ['scripts/*.cjs'],
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    // The sandbox is a separate house: it shares the protocol, signing and generic I/O with the client side, nothing else.
    files: ['src/sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+lib/(?!gateway/protocol/|gateway/signing\\.js$|io/)',
              message:
                'The sandbox imports only lib/gateway/protocol, lib/gateway/signing and lib/io from the client side.',
            },
          ],
        },
      ],
    },
  },
)
