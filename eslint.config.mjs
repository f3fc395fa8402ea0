// Lint rules about structure only: no import circles, and the directions between modules that
// docs/architecture.md describes. Style is left to the compiler and review; the rule set is kept
// small so that `npm run lint` stays fast enough to run in every `npm test`.
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import reactHooks from 'eslint-plugin-react-hooks';

const resolver = createTypeScriptImportResolver({
  project: ['tsconfig.json', 'client/tsconfig.json'],
  noWarnOnMultipleProjects: true,
});

// Server: one direction between knowledge/ and retrieval/. knowledge/ owns the knowledge base and
// the finding over it (items, chunks, the search indexes, BM25, fusion with the semantic port);
// retrieval/ holds the stateless text and ranking rules it applies (language, query terms,
// thesaurus, cross-lingual translation, the FTS5 tokenizer, the BM25 parameters, the relevance
// floor and confidence, jurisdiction) and imports nothing from knowledge/ or embeddings/.
// src/shared is the contract layer the client builds on and imports nothing from the server.
const serverZones = [
  {
    target: './src/retrieval',
    from: ['./src/knowledge', './src/embeddings'],
    message: 'retrieval/ holds stateless query and ranking rules; knowledge/ uses them, never the reverse.',
  },
  {
    target: './src/shared/**/!(*.spec).ts',
    from: './src/!(shared)/**',
    message: 'src/shared is the contract layer the client builds on; it imports nothing from the server.',
  },
];

// Client: a feature reaches another only through that feature's index.ts (tests may also use its
// testing/ helpers, and a stylesheet may be shared); a console tab reaches another tab the same way. admin/components and
// admin/embeddings (a section the configuration and knowledge tabs both show) are shared.
const root = import.meta.dirname;
const publicParts = (dir) => [`${root}/${dir}/index.@(ts|tsx)`, `${root}/${dir}/testing/**`, `${root}/${dir}/*.css`];
const clientFeatures = ['admin', 'auth', 'chat', 'widget'];
const adminTabs = ['analytics', 'api-keys', 'audit', 'budgets', 'configuration', 'conversations', 'knowledge', 'security', 'team', 'widgets'];
const clientZones = [
  ...clientFeatures.map((feature) => ({
    target: `./client/src/features/!(${feature})/**`,
    from: `${root}/client/src/features/${feature}/**`,
    except: publicParts(`client/src/features/${feature}`),
    message: `Import the ${feature} feature through client/src/features/${feature}/index.ts.`,
  })),
  ...adminTabs.map((tab) => ({
    target: `./client/src/features/admin/@(${adminTabs.filter((other) => other !== tab).join('|')})/**`,
    from: `${root}/client/src/features/admin/${tab}/**`,
    except: publicParts(`client/src/features/admin/${tab}`),
    message: `Console tabs stay apart: import the ${tab} tab only through admin/${tab}/index.ts.`,
  })),
];

export default tseslint.config(
  { ignores: ['dist/**', 'client/dist/**', 'node_modules/**', 'coverage/**'] },
  {
    files: ['src/**/*.ts', 'client/src/**/*.{ts,tsx}'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    // react-hooks is registered (not enabled) so that the code's existing disable comments resolve.
    plugins: { 'import-x': importX, '@typescript-eslint': tseslint.plugin, 'react-hooks': reactHooks },
    settings: {
      'import-x/resolver-next': [resolver],
      'import-x/extensions': ['.ts', '.tsx', '.js'],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: [...serverZones, ...clientZones] }],
    },
  },
);
