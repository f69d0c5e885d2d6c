// The console is built into dist/ and served by the API at /console/ (apps/api/src/http/consoleStatic.ts), which
// compresses it and sends its strict Content-Security-Policy: no inline script or style may end up in the build.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Small SVGs inlined as data: URLs are allowed by the CSP (img-src data:); nothing else is inlined.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    // `npm run dev -w @mountain/console`: the API (npm start) behind Vite's dev server, same origin as in production.
    proxy: { '/public-api': 'http://127.0.0.1:8080' },
  },
});
