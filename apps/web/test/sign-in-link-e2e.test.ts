import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBrowserTests, startWebHarness, type WebHarness } from './harness.js';

// A sign-in link carries its token in the address (`/#token=…`). The token must leave the
// address bar and the tab's history before the app's router starts (the router writes the
// address it started with back into history), whoever is signed in and wherever the link
// points, and stay out of them through navigation, back and reload.
const ADMIN = 'assay_sign-in-link-admin-0123456789abcdef';

describe.skipIf(!runBrowserTests)('sign-in links in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness(ADMIN, { name: 'sign-in-link' });
  }, 240_000);
  afterAll(async () => {
    await web?.close();
  });

  it('drop the token from the address and the history, signed out or signed in', async () => {
    const created = await web.call('POST', '/users', ADMIN, { name: 'lin', role: 'annotator' });
    const { token } = (await created.json()) as { token: string };
    const noToken = (url: string) => expect(url).not.toContain('token=');

    // Signed out, a link to the start page.
    const lin = await web.browser.newPage();
    await lin.goto(`${web.base}/#token=${encodeURIComponent(token)}`);
    await lin.getByText('lin (annotator)').first().waitFor();
    await lin.waitForTimeout(300);
    expect(lin.url()).toBe(`${web.base}/`);

    // Signed out, a link deeper in the app; then on to another page and back.
    const admin = await web.browser.newPage();
    await admin.goto(`${web.base}/admin/collections#token=${encodeURIComponent(ADMIN)}`);
    await admin.getByText('admin (admin)').first().waitFor();
    await admin.waitForTimeout(300);
    expect(admin.url()).toBe(`${web.base}/admin/collections`);
    await admin.goto(`${web.base}/admin/users`);
    await admin.getByText('admin (admin)').first().waitFor();
    await admin.goBack();
    await admin.waitForTimeout(300);
    expect(admin.url()).toBe(`${web.base}/admin/collections`);
    await admin.reload();
    await admin.getByText('admin (admin)').first().waitFor();
    noToken(admin.url());

    // Signed in as lin, a link for someone else: asked first, the token already gone.
    await lin.goto(`${web.base}/#token=${encodeURIComponent(ADMIN)}`);
    await lin.getByRole('dialog', { name: 'switch account' }).waitFor();
    await lin.waitForTimeout(300);
    expect(lin.url()).toBe(`${web.base}/`);
    await lin.goBack();
    noToken(lin.url());
    await lin.close();
    await admin.close();
  }, 120_000);
});
