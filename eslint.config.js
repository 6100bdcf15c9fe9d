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
/** What no domain folder imports: the command line, its views and the desk, the sandbox, prompts. */
const DOMAIN = ['cli', 'render', 'desk', 'commands', 'sandbox']
const PROMPTS = "Prompts are the command line's (src/lib/cli/): a domain folder takes an asker as a port."

/**
 * An import the folder may not make, static (`import ... from`) or dynamic (`import()`): the same
 * fence for both, so a lazy import never walks around a floor.
 */
function fence(files, forbidden, message, {prompts = true} = {}) {
  const pattern = `^(${forbidden.join('|')})`
  const noPrompts = prompts ? [{selector: "ImportExpression[source.value='@inquirer/prompts']", message: PROMPTS}] : []
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: prompts ? [{name: '@inquirer/prompts', message: PROMPTS}] : [],
          patterns: [{regex: pattern, message}],
        },
      ],
      'no-restricted-syntax': [
        'error',
        ...noPrompts,
        // A selector's regex holds no slash: each is written \x2F.
        {selector: `ImportExpression[source.value=/${pattern.replaceAll('/', '\\x2F')}/]`, message},
      ],
    },
  }
}

const up = (folders) => `(\\.\\./)+(${folders.join('|')})/`

const layer = (folder, above) =>
  fence(
    [`src/lib/${folder}/**/*.ts`],
    [up([...DOMAIN, ...above])],
    `src/lib/${folder}/ stands below ${[...DOMAIN, ...above].join(', ')}: it never imports them (eslint.config.js, BELOW).`,
  )

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
    // No circle of imports anywhere in gw's code. The rule reads only the files of the extensions
    // named here: without .ts it read none of gw's, and a circle passed (test/unit/fences.test.ts).
    files: ['src/**/*.ts'],
    plugins: {'import-x': importX},
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: {'import-x/no-cycle': ['error', {ignoreExternal: true}]},
  },
  // A command reads like its help; its run beside it (create.run.ts) and a module of src/lib hold
  // one idea. Lines in the file, blank and comment lines too: a limit is a ceiling, not a target.
  {
    files: ['src/commands/**/*.ts'],
    ignores: ['src/commands/**/*.run.ts'],
    rules: {'max-lines': ['error', {max: 80}]},
  },
  {
    files: ['src/lib/**/*.ts', 'src/commands/**/*.run.ts'],
    rules: {'max-lines': ['error', {max: 400}]},
  },
  {
    files: ['src/lib/**/*.ts', 'src/commands/**/*.run.ts'],
    rules: {'max-lines-per-function': ['error', {max: 80}]},
  },
  ...Object.entries(BELOW).map(([folder, above]) => layer(folder, above)),
  // The command line's framework never imports a command (a command's run is beside it, in src/commands).
  fence(
    ['src/lib/cli/**/*.ts'],
    [up(['commands'])],
    'src/lib/cli/ is the framework of commands: it never imports one.',
    {prompts: false},
  ),
  // Views never reach back into the command line.
  fence(['src/lib/render/**/*.ts'], [up(['cli', 'commands'])], 'A view takes what it shows; it never imports cli/.'),
  // The loose modules of src/lib (errors, retry, batch...) stand below every folder: they import none.
  fence(
    ['src/lib/*.ts'],
    ['\\./[^/]+/', '\\.\\./'],
    'A module of src/lib itself stands below every folder of src/lib: it imports none of them.',
  ),
  {
    // The single executable's launcher runs as CommonJS inside Node's SEA, where require is the loader.
    files: ['scripts/*.cjs'],
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  // The sandbox is a separate house: it shares the protocol, signing and generic I/O with the client side, nothing else.
  fence(
    ['src/sandbox/**/*.ts'],
    ['(\\.\\./)+lib/(?!gateway/protocol/|gateway/signing\\.js$|io/)'],
    'The sandbox imports only lib/gateway/protocol, lib/gateway/signing and lib/io from the client side.',
  ),
)
