// ESLint for the whole workspace: typescript-eslint's strict, type-checked rules on every
// package's sources and tests (the root tsconfig.test.json covers both; the console has its own,
// for the DOM library), the recommended rules on the JavaScript scripts. Each rule tuned below
// says why.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.tap/**', '**/coverage/**', '**/build/**'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './packages/console/tsconfig.test.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Numbers and booleans read well in messages; objects, null and undefined stay refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // Fastify plugins, hooks and handlers are async by contract (the framework awaits what they
      // return), with or without an await inside; so are tap's test callbacks.
      '@typescript-eslint/require-await': 'off',
      // `() => void effect()` shorthand is how callbacks that return nothing are written here.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // `const { key: _key, ...rest } = x` is how a copy without a key is made here (no `delete`,
      // which no-dynamic-delete refuses and which turns objects into slow dictionaries), and
      // `for (const _ of iterable)` counts or drains an iterable without building an array.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, varsIgnorePattern: '^_$' }],
    },
  },
  {
    files: ['packages/*/test/**/*.ts'],
    rules: {
      // tap queues and awaits its own subtests: `t.test(…)` is not a forgotten promise.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', name: ['test', 'teardown'], package: '@tapjs/test' }],
      }],
      // A test states what it expects a fixture to hold; a wrong `!` fails the test, loudly.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests read JSON answers whose shape is exactly what they then assert.
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      // The Node.js globals the scripts use.
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' },
    },
  },
)
