import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [sveltekit()],
  // `vite dev` talks to an assay server on :8080 (npm start).
  server: { proxy: { '/api': 'http://localhost:8080' } },
});
