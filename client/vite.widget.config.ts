import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The page inside the widget's iframe (GET /widget/{id}): its own build, so its budget (150 KB
 * gzip, .size-limit.json) counts exactly what the iframe loads. It reuses the chat feature's parts.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/widget-frame/',
  resolve: { alias: { '@shared': fileURLToPath(new URL('../src/shared', import.meta.url)) } },
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: fileURLToPath(new URL('../dist/client/widget-frame', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: {
      input: fileURLToPath(new URL('widget.html', import.meta.url)),
      // Chunks loaded on demand go to folders of their own: the Markdown renderer to assets/lazy/,
      // the dictionaries other than English to assets/lang/. The page's budget counts what the
      // iframe loads before the chat shows (assets/*.js), the others their own.
      output: {
        chunkFileNames: (chunk) =>
          !chunk.isDynamicEntry ? 'assets/[name]-[hash].js' : /[\\/]i18n[\\/]/.test(chunk.facadeModuleId ?? '') ? 'assets/lang/[name]-[hash].js' : 'assets/lazy/[name]-[hash].js',
      },
    },
  },
});
