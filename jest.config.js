/** Server tests: unit specs beside the code (src/**\/*.spec.ts) and end-to-end specs in test/. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: {
    '^.+\\.ts$': 'ts-jest',
    // jose (used by the A2A and MCP SDKs) is ES modules only, which Node loads with require() but
    // jest does not: its files are turned into CommonJS like the tests.
    '^.+/node_modules/jose/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 30000,
  // The default output, and after it every skipped test with its reason (test/support/requirements.ts).
  reporters: ['default', '<rootDir>/test/support/skip-reporter.js'],
};
