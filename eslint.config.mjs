// Lints the TypeScript host (type-aware) and our Node scripts/tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'target/**', 'node_modules/**', '.tools/**', '.test-runs/**', 'artifacts/**', '.try/**'] },
  {
    files: ['extension/src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['tests/integration/suite/**/*.cjs', 'tests/integration/untrusted/**/*.cjs', 'tests/integration/oauth/**/*.cjs', 'tests/integration/approval/**/*.cjs', 'tests/integration/shared/**/*.cjs', 'tests/integration/isolated/**/*.cjs'],
    languageOptions: { globals: { ...globals.mocha } },
  },
);
