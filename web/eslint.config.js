// eslint.config.js - lint rules for the page (not embedded: *.config.js).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/'] },
  js.configs.recommended,
  {
    files: ['js/**/*.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.browser },
    },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Trace strings reach the DOM only as text (docs/contributing.md).
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Use textContent, h() or escapeHtml().' },
        { property: 'outerHTML', message: 'Use textContent, h() or escapeHtml().' },
        { property: 'insertAdjacentHTML', message: 'Use h().' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "AssignmentExpression[left.property.name='innerHTML']", message: 'No innerHTML.' },
        { selector: "CallExpression[callee.property.name='write'][callee.object.name='document']", message: 'No document.write.' },
      ],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
    },
  },
  {
    files: ['eslint.config.js'],
    languageOptions: { sourceType: 'module' },
  },
];
