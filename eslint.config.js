import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'oclif.manifest.json', 'coverage/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {globals: globals.node},
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
      'no-console': 'off',
    },
  },
)
