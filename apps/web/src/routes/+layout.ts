// A single-page app: everything renders in the browser and talks to /api.
export const ssr = false;
export const prerender = false;
