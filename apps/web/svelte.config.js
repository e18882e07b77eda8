import adapter from '@sveltejs/adapter-static';

// `npm run build` writes build/, which the assay server serves. The tests build into a
// folder of their own (ASSAY_WEB_BUILD_DIR), never replacing the files a running server
// serves.
const out = process.env.ASSAY_WEB_BUILD_DIR || 'build';

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    // A single-page app: every path that is not a built file gets index.html, and the
    // app routes in the browser. The assay server serves build/ at `/`.
    adapter: adapter({ pages: out, assets: out, fallback: 'index.html', strict: false }),
    paths: { relative: false },
  },
};
