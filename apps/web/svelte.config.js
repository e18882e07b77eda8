import adapter from '@sveltejs/adapter-static';

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    // A single-page app: every path that is not a built file gets index.html, and the
    // app routes in the browser. The assay server serves build/ at `/`.
    adapter: adapter({ fallback: 'index.html', strict: false }),
    paths: { relative: false },
  },
};
