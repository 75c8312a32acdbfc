import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by Basalt at /dashboard (src/http/routes/dashboard.ts); `npm run dev` proxies the API to
// a server on :1337 so the dashboard can be worked on with hot reload.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022' },
  server: { proxy: { '/1': 'http://localhost:1337' } },
});
