import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The widget loader (/widget.js): one self-contained IIFE, no dependencies (10 KB gzip budget, .size-limit.json). */
export default defineConfig({
  resolve: { alias: { '@shared': fileURLToPath(new URL('../src/shared', import.meta.url)) } },
  build: {
    outDir: fileURLToPath(new URL('../dist/client', import.meta.url)),
    emptyOutDir: false,
    sourcemap: false,
    lib: {
      entry: fileURLToPath(new URL('src/features/widget/loader/loader.ts', import.meta.url)),
      formats: ['iife'],
      name: 'SupportAssistantLoader',
      fileName: () => 'widget.js',
    },
  },
});
