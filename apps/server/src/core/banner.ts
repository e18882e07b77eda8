// The lines of `assay serve`'s start-up banner that lead people to the web app.

/** What the banner says about the web app and signing in to it. */
export interface WebAppBannerInput {
  /** The API's base URL, e.g. http://127.0.0.1:8080/api. */
  apiUrl: string;
  /** Whether the built web app is served at `/`. */
  webBuilt: boolean;
  /** The first admin, when this start created it. */
  createdAdmin?: { token: string; fromEnv: boolean };
}

/**
 * The web app's address, and a sign-in link for the first admin when this start created
 * it: the token is shown this once (only its hash is stored), as the lines above it show
 * the token itself. A token given in ASSAY_ADMIN_TOKEN is not echoed.
 */
export function webAppBanner(input: WebAppBannerInput): string[] {
  const base = `${input.apiUrl.replace(/\/api$/, '')}/`;
  if (!input.webBuilt)
    return [
      `web app: not built (run \`npm run build\`, then start again); the API is at ${input.apiUrl}`,
    ];
  const admin = input.createdAdmin;
  if (admin === undefined)
    return [
      `web app: ${base} (sign in with your token; \`assay users token admin\` prints a new sign-in link)`,
    ];
  if (admin.fromEnv)
    return [
      `web app: ${base} (sign in as the admin: ${base}#token=<the token in ASSAY_ADMIN_TOKEN>)`,
    ];
  return [
    `web app: ${base}`,
    `sign in to it as the admin with this link (it holds the token; keep it to yourself):`,
    `  ${base}#token=${encodeURIComponent(admin.token)}`,
  ];
}
