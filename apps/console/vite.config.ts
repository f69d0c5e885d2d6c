// The console is built into dist/ and served by the API at /console/ (apps/api/src/http/consoleStatic.ts), which
// compresses it and sends its strict Content-Security-Policy: no inline script or style may end up in the build.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig(({ command }) => ({
  base: '/console/',
  plugins: [react()],
  // A build is always the production build, whatever NODE_ENV the building process has (tests run with
  // NODE_ENV=test, which would otherwise give React's development build). The build script also sets
  // NODE_ENV=production: under NODE_ENV=development (npm start's, say) the React plugin would emit jsxDEV calls,
  // which production React does not have, and the console would render nothing.
  ...(command === 'build' ? { define: { 'process.env.NODE_ENV': JSON.stringify('production') } } : {}),
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Nothing is inlined as a data: URL: every asset is a file of its own.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    // `npm run dev -w @mountain/console`: the API (npm start) behind Vite's dev server, same origin as in production.
    proxy: { '/public-api': 'http://127.0.0.1:8080' },
  },
}));
