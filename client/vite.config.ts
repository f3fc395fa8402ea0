import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The web client. `@shared` is the server's src/shared (catalogs and contracts), never copied. */
export default defineConfig({
  root,
  resolve: { alias: { '@shared': fileURLToPath(new URL('../src/shared', import.meta.url)) } },
  esbuild: { jsx: 'automatic' },
  build: { outDir: fileURLToPath(new URL('../dist/client', import.meta.url)), emptyOutDir: true, sourcemap: false },
  server: {
    port: 5173,
    proxy: {
      '/api': 'http://localhost:3000',
      '/interact': 'http://localhost:3000',
      '/health': 'http://localhost:3000',
      '/agents': 'http://localhost:3000',
      '/socket.io': { target: 'ws://localhost:3000', ws: true },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    css: false,
  },
});
