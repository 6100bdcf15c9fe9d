import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

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
