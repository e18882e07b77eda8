import { describe, expect, it } from 'vitest';
import { webAppBanner } from '../src/core/banner.js';

describe('the start-up banner', () => {
  const apiUrl = 'http://127.0.0.1:8080/api';

  it('gives the first admin a link that signs in to the web app', () => {
    expect(
      webAppBanner({
        apiUrl,
        webBuilt: true,
        createdAdmin: { token: 'assay_abc-DEF_123', fromEnv: false },
      }),
    ).toEqual([
      'web app: http://127.0.0.1:8080/',
      'sign in to it as the admin with this link (it holds the token; keep it to yourself):',
      '  http://127.0.0.1:8080/#token=assay_abc-DEF_123',
    ]);
  });

  it('does not echo a token from ASSAY_ADMIN_TOKEN', () => {
    const lines = webAppBanner({
      apiUrl,
      webBuilt: true,
      createdAdmin: { token: 'assay_from-env-secret', fromEnv: true },
    });
    expect(lines.join('\n')).not.toContain('assay_from-env-secret');
    expect(lines).toEqual([
      'web app: http://127.0.0.1:8080/ (sign in as the admin: http://127.0.0.1:8080/#token=<the token in ASSAY_ADMIN_TOKEN>)',
    ]);
  });

  it('on later starts names the web app and how to get a new sign-in link', () => {
    expect(webAppBanner({ apiUrl, webBuilt: true })).toEqual([
      'web app: http://127.0.0.1:8080/ (sign in with your token; `assay users token admin` prints a new sign-in link)',
    ]);
  });

  it('says when the web app is not built', () => {
    expect(webAppBanner({ apiUrl, webBuilt: false })).toEqual([
      'web app: not built (run `npm run build`, then start again); the API is at http://127.0.0.1:8080/api',
    ]);
  });
});
