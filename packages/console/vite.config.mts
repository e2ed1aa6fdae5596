import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by the gateway at /console (services/gateway/src/http/console-static.ts): assets are
// content-hashed so the gateway can cache them for a year; index.html is never cached.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The CSP allows no inline script: keep the module preload helper in a file too.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
