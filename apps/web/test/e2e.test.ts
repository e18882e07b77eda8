// End-to-end: the built web app in Debian's Chromium (driven by playwright-core) against
// the real assay server on embedded PGlite. Screenshots go to apps/web/e2e-screenshots/
// (git-ignored). Without /usr/bin/chromium the suite is skipped, unless CI=true, where a
// missing browser is a failure.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  keysTaken,
  runBrowserTests,
  shots,
  startWebHarness,
  webRoot,
  type WebHarness,
} from './harness.js';

const ADMIN = 'assay_e2e-admin-token-0123456789';
const XSS = '<img src=x onerror=alert(1)>';

/** The files of a folder with their sizes and modification times ('absent' without it). */
function snapshot(dir: string): string {
  if (!existsSync(dir)) return 'absent';
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((name) => {
      const stat = statSync(join(dir, name));
      return `${name} ${stat.size} ${stat.mtimeMs}`;
    })
    .join('\n');
}

if (!runBrowserTests) {
  console.warn(
    `web e2e skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set ASSAY_CHROMIUM)`,
  );
}

// Twelve passages over three topics; passage d5 carries markup that must show as text.
const DOCS =
  Array.from({ length: 12 }, (_, i) => {
    const n = i + 1;
    const text = n === 5 ? `boundary layer ${XSS} at speed` : `passage ${n} about wing flutter`;
    return `d${n}\t${text}`;
  }).join('\n') + '\n';
const TOPICS = '1\twing flutter\n2\tboundary layer\n3\tshock waves\n';
// Run a: four documents per topic (depth 4 pools 12 items).
const RUN = [1, 2, 3]
  .flatMap((t) => [1, 2, 3, 4].map((r) => `${t} Q0 d${(t - 1) * 4 + r} ${r} ${10 - r} runA`))
  .join('\n');
// Run b: the same documents, reversed within each topic.
const RUN_B = [1, 2, 3]
  .flatMap((t) => [1, 2, 3, 4].map((r) => `${t} Q0 d${(t - 1) * 4 + 5 - r} ${r} ${10 - r} runB`))
  .join('\n');
const LLM = [1, 2, 3]
  .flatMap((t) => [1, 2, 3, 4].map((r) => `${t} 0 d${(t - 1) * 4 + r} ${r % 4}`))
  .join('\n');

// Three systems' answers to two topics; system c's answer to topic 1 carries markup.
const RESPONSES =
  [
    { topic: 'q1', system: 'a', query: 'why does a wing flutter', answer: 'Aeroelastic coupling.' },
    { topic: 'q1', system: 'b', query: 'why does a wing flutter', answer: 'Because of wind.' },
    {
      topic: 'q1',
      system: 'c',
      query: 'why does a wing flutter',
      answer: `Flutter ${XSS} happens.`,
    },
    { topic: 'q2', system: 'a', query: 'what is a shock wave', answer: 'A thin pressure jump.' },
    { topic: 'q2', system: 'b', query: 'what is a shock wave', answer: 'A loud noise.' },
    { topic: 'q2', system: 'c', query: 'what is a shock wave', answer: 'Supersonic flow.' },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n';
// The LLM's grades (informativeness, completeness) of each answer, with a justification;
// novelty and actionability are 2 throughout.
const LLM_GRADES: Record<string, [number, number]> = {
  'q1 a': [4, 5],
  'q1 b': [1, 2],
  'q1 c': [3, 3],
  'q2 a': [5, 4],
  'q2 b': [0, 1],
  'q2 c': [2, 3],
};
const LLM_SCORES =
  Object.entries(LLM_GRADES)
    .map(([key, [informativeness, completeness]]) => {
      const [topic, system] = key.split(' ');
      return JSON.stringify({
        topic,
        system,
        trial: 1,
        scores: { informativeness, completeness, novelty: 2, actionability: 2 },
        justification: `judge note on ${key} ${XSS}`,
      });
    })
    .join('\n') + '\n';

describe.skipIf(!runBrowserTests)('web app in Chromium', () => {
  let h: WebHarness;
  let browser: Browser;
  let base: string;
  let webBuild: string;
  let servedBefore: string;
  const call = (method: string, path: string, token: string, body?: string | object) =>
    h.call(method, path, token, body);
  const signedIn = (token: string, path?: string): Promise<Page> => h.signedIn(token, path);

  beforeAll(async () => {
    // The app under test is the one built from the current sources, into a folder of its
    // own: apps/web/build may be what a running `npm start` serves.
    servedBefore = snapshot(join(webRoot, 'build'));
    h = await startWebHarness(ADMIN);
    ({ browser, base, webBuild } = h);
    const ok = async (r: Promise<Response>) => expect((await r).status).toBe(201);
    await ok(call('POST', '/collections?name=aero&format=tsv', ADMIN, DOCS));
    await ok(call('POST', '/collections/aero/topics', ADMIN, TOPICS));
    await ok(call('POST', '/collections/aero/runs?name=runA', ADMIN, RUN));
    await ok(call('POST', '/collections/aero/runs?name=runB', ADMIN, RUN_B));
    await ok(call('POST', '/collections/aero/label-sets?name=llm-judge', ADMIN, LLM));
  }, 240_000);

  afterAll(async () => {
    await h?.close();
  }, 60_000);

  it('built the app under test without touching apps/web/build, which `npm start` serves', () => {
    expect(existsSync(join(webBuild, 'index.html'))).toBe(true);
    expect(snapshot(join(webRoot, 'build'))).toBe(servedBefore);
  });

  it('runs the campaign round trip: users, campaign, keyboard labelling, reload, agreement', async () => {
    // The admin creates two annotators and reads their tokens from the page.
    const admin = await signedIn(ADMIN, '/admin/users');
    const tokens: Record<string, string> = {};
    for (const name of ['ada', 'bob']) {
      await admin.getByLabel('Name').fill(name);
      await admin.getByRole('button', { name: 'Add user' }).click();
      const token = admin.getByTestId('new-token');
      await token.waitFor();
      tokens[name] = (await token.textContent())!.trim();
      await admin.getByRole('button', { name: 'Done' }).click();
    }
    await admin.getByRole('cell', { name: 'bob', exact: true }).waitFor();
    await admin.screenshot({ path: join(shots, 'users.png'), fullPage: true });

    // … and a blind campaign from a depth-4 pool of runA, two annotators per item.
    await admin.goto(`${base}/admin/collections/aero`);
    const pool = admin.getByRole('form', { name: 'pool' });
    await pool.getByLabel('runA').check();
    await pool.getByLabel('Depth').fill('4');
    await pool.getByRole('button', { name: 'Compute pool' }).click();
    await admin.getByText('12 items over 3 topics.').waitFor();
    const form = admin.getByRole('form', { name: 'new campaign' });
    await form.getByLabel('Name').fill('round one');
    await form.getByLabel('ada', { exact: true }).check();
    await form.getByLabel('bob', { exact: true }).check();
    await form.getByLabel('Overlap (annotators per item)').fill('2');
    await form.getByLabel('llm-judge', { exact: true }).check();
    await form.getByRole('button', { name: 'Create campaign' }).click();
    await admin.getByRole('link', { name: 'round one' }).waitFor();
    await admin.screenshot({ path: join(shots, 'collection.png'), fullPage: true });
    const campaigns = (await (
      await call('GET', '/collections/aero/campaigns', ADMIN)
    ).json()) as Array<{
      id: number;
      items: number;
      blind: boolean;
    }>;
    expect(campaigns[0]).toMatchObject({ items: 12, blind: true });
    const id = campaigns[0]!.id;

    // Ada labels ten items with the keyboard; every API answer she gets is recorded.
    const ada = await browser.newPage();
    const bodies: string[] = [];
    ada.on('response', async (response) => {
      if (!response.url().includes('/api/')) return;
      try {
        bodies.push(await response.text());
      } catch {
        // A response without a body (204).
      }
    });
    let alerted = false;
    ada.on('dialog', async (dialog) => {
      alerted = true;
      await dialog.dismiss();
    });
    await ada.goto(`${base}/#token=${encodeURIComponent(tokens.ada!)}`);
    await ada.getByRole('link', { name: 'round one' }).click();
    await ada.getByText('Progress: 0 of 12').waitFor();
    // Grade buttons are named by grade and meaning.
    await ada.getByRole('button', { name: /^2 – the passage partly answers/ }).waitFor();
    await ada.keyboard.press('?');
    await ada.getByRole('region', { name: 'keyboard shortcuts' }).waitFor();
    await ada.screenshot({ path: join(shots, 'annotate.png'), fullPage: true });
    await ada.keyboard.press('?');
    let sawXss = false;
    for (let i = 0; i < 10; i++) {
      const passage = ada.getByTestId('passage');
      const text = (await passage.textContent()) ?? '';
      if (text.includes(XSS)) {
        sawXss = true;
        // Shown as characters: no element was made from the passage's markup.
        expect(await passage.locator('img').count()).toBe(0);
        expect(await passage.locator('mark').first().textContent()).toBe('boundary');
        await ada.screenshot({ path: join(shots, 'annotate-markup-as-text.png'), fullPage: true });
      }
      // Keys count from 250 ms after an item appears (the campaign's input lock).
      await keysTaken(ada);
      await ada.keyboard.press(String(i % 4));
      await ada.getByText(`Progress: ${i + 1} of 12`).waitFor();
    }
    expect(sawXss).toBe(true);
    expect(alerted).toBe(false);
    // The progress counts a label as it is given; the reload comes once all are saved (a
    // label sent again after a reload would be a second revision of the same grade, and `u`
    // would then undo that one).
    await ada.getByText('All labels saved.').waitFor();
    await ada.reload();
    await ada.getByText('Progress: 10 of 12').waitFor();
    await ada.getByText('All labels saved.').waitFor();
    // Undo with `u`: the last label is cleared and its item comes back.
    await ada.keyboard.press('u');
    await ada.getByText('Progress: 9 of 12').waitFor();
    await keysTaken(ada);
    await ada.keyboard.press('3');
    await ada.getByText('Progress: 10 of 12').waitFor();
    const summary = (await (await call('GET', `/campaigns/${id}`, ADMIN)).json()) as {
      annotators: Array<{ name: string; done: number }>;
    };
    expect(summary.annotators.find((a) => a.name === 'ada')?.done).toBe(10);

    // In the blind campaign nothing Ada received names or grades the LLM label set.
    // (At least the answers to her ten saved labels and to the items fetched.)
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) {
      expect(body).not.toContain('llm-judge');
      expect(body).not.toContain('reference');
      expect(body).not.toContain('compareWith');
    }

    // Bob labels through the API, so the two can be compared.
    for (let i = 0; i < 12; i++) {
      const next = await call('GET', `/campaigns/${id}/next`, tokens.bob!);
      if (next.status === 204) break;
      const item = ((await next.json()) as { item: { id: number } }).item.id;
      await call('POST', `/campaigns/${id}/labels`, tokens.bob!, { item, grade: i % 3 });
    }

    // The admin sees both heatmaps.
    await admin.goto(`${base}/admin/campaigns/${id}`);
    await admin
      .getByRole('img', { name: "Human vs human: Cohen's kappa between annotators" })
      .waitFor();
    await admin
      .getByRole('img', { name: "Human vs label sets: kappa and alpha of the campaign's labels" })
      .waitFor();
    await admin.screenshot({ path: join(shots, 'campaign-agreement.png'), fullPage: true });

    // Adjudication: the items Ada and Bob graded differently, without the LLM's grades
    // until the admin asks; the admin sets the first one's final grade to 3.
    const disagreements = (await (
      await call('GET', `/campaigns/${id}/disagreements`, ADMIN)
    ).json()) as Array<{ topicId: string; docId: string; grades: Array<{ grade: number }> }>;
    expect(disagreements.length).toBeGreaterThan(0);
    const first = disagreements[0]!;
    expect(new Set(first.grades.map((g) => g.grade)).size).toBeGreaterThan(1);
    const queue = admin.getByRole('table', { name: 'items to adjudicate' });
    await queue.waitFor();
    await expect(queue.getByRole('row').count()).resolves.toBe(disagreements.length + 1);
    expect(await queue.textContent()).not.toContain('llm-judge');
    await admin
      .getByRole('checkbox', { name: /^Show the grades of the compared label sets/ })
      .check();
    await queue.getByRole('columnheader', { name: 'label sets' }).waitFor();
    await queue
      .getByText(/llm-judge: \d/)
      .first()
      .waitFor();
    const where = `topic ${first.topicId} document ${first.docId}`;
    await admin.getByRole('combobox', { name: `final grade of ${where}` }).selectOption('3');
    await admin.getByRole('button', { name: `save the final grade of ${where}` }).click();
    await admin
      .getByRole('status')
      .getByText(`Topic ${first.topicId}, document ${first.docId}: final grade 3.`)
      .waitFor();
    await admin.screenshot({ path: join(shots, 'campaign-adjudication.png'), fullPage: true });
    const campaignLabels = (await (
      await call(
        'GET',
        `/collections/aero/label-sets/${encodeURIComponent('round one')}/labels`,
        ADMIN,
      )
    ).json()) as Array<{ topicId: string; docId: string; grade: number }>;
    expect(
      campaignLabels.find((l) => l.topicId === first.topicId && l.docId === first.docId)?.grade,
    ).toBe(3);

    // A leaderboard under the LLM labels and the campaign's, published: its public page
    // needs no token and shows the slope chart of the two rankings.
    const report = await call('POST', '/reports/comparisons', ADMIN, {
      collection: 'aero',
      labelSets: ['llm-judge', 'round one'],
      runs: ['runA', 'runB'],
      measures: ['ndcg_cut.10'],
    });
    expect(report.status).toBe(201);
    const { id: reportId } = (await report.json()) as { id: number };
    // The admin publishes it from the report page, which then shows the public link.
    await admin.goto(`${base}/admin/reports/${reportId}`);
    const publish = admin.getByRole('form', { name: 'publish' });
    await publish.getByLabel('Slug').fill('aero-board');
    await publish.getByRole('button', { name: 'Publish' }).click();
    await admin.getByRole('status').getByText('Published as aero-board.').waitFor();
    const link = admin
      .getByRole('list', { name: 'public pages' })
      .getByRole('link', { name: `${base}/leaderboards/aero-board` });
    expect(await link.getAttribute('href')).toBe('/leaderboards/aero-board');
    await admin.screenshot({ path: join(shots, 'report-published.png'), fullPage: true });
    const visitor = await browser.newPage();
    await visitor.goto(`${base}/leaderboards/aero-board`);
    const downloads = visitor.getByRole('list', { name: 'downloads' });
    for (const [name, ext] of [
      ['CSV', 'csv'],
      ['LaTeX', 'tex'],
      ['JSON', 'json'],
    ])
      expect(
        await downloads.getByRole('link', { name: `Download ${name}` }).getAttribute('href'),
      ).toBe(`/api/public/leaderboards/aero-board.${ext}`);
    await visitor
      .getByRole('img', { name: /^Rank of each run under llm-judge and round one/ })
      .waitFor();
    await visitor.getByRole('img', { name: 'Judged@10 per run under round one' }).waitFor();
    await visitor.screenshot({ path: join(shots, 'public-leaderboard.png'), fullPage: true });

    // The policy header forbids inline scripts on every page.
    const root = await fetch(`${base}/annotate/1`);
    const scripts = /script-src ([^;]*)/.exec(
      root.headers.get('content-security-policy') ?? '',
    )?.[1];
    expect(scripts).toMatch(/^'self'( 'sha256-[A-Za-z0-9+/=]+')*$/);
  }, 240_000);
  it('keeps hand scores across a reload, with no machine score set, machine scores hidden unless asked', async () => {
    const created = await call('POST', '/response-sets', ADMIN, {
      name: 'flutter-answers',
      responses: RESPONSES,
    });
    expect(created.status).toBe(201);

    const admin = await signedIn(ADMIN, '/admin/answers');
    let alerted = false;
    admin.on('dialog', async (dialog) => {
      alerted = true;
      await dialog.dismiss();
    });
    await admin.getByRole('link', { name: 'flutter-answers' }).click();
    await admin.getByText('6 answers of 3 systems to 2 topics.').waitFor();
    await admin.getByText('No score sets yet.').waitFor();
    const answerOf = (system: string) =>
      admin.getByRole('article', { name: `answer of ${system}` });
    // Markup in an answer is shown as characters.
    const c = answerOf('c');
    expect(await c.getByTestId('answer').textContent()).toBe(`Flutter ${XSS} happens.`);
    expect(await c.locator('img').count()).toBe(0);

    // With no machine score set, the person scores on answer-quality's rubric; each grade
    // is stored as it is given.
    const radio = (system: string, criterion: string, grade: number) =>
      answerOf(system)
        .getByRole('radiogroup', { name: `${criterion} of ${system}` })
        .getByRole('radio', { name: `${criterion} ${grade}` });
    await radio('a', 'informativeness', 4).check();
    await radio('a', 'novelty', 1).check();
    await radio('b', 'completeness', 0).check();
    await radio('a', 'novelty', 3).check(); // changed: the newer grade is stored
    await admin.getByText('Every hand score shown is saved.').waitFor();
    const storedScores = async () =>
      (
        (await (
          await call(
            'GET',
            '/response-sets/flutter-answers/hand-scores?judge=answer-quality',
            ADMIN,
          )
        ).json()) as {
          scores: Array<{ topicId: string; system: string; criterion: string; grade: number }>;
        }
      ).scores.map((s) => [s.topicId, s.system, s.criterion, s.grade]);
    expect(await storedScores()).toEqual([
      ['q1', 'a', 'informativeness', 4],
      ['q1', 'a', 'novelty', 3],
      ['q1', 'b', 'completeness', 0],
    ]);

    // A reload, and a visit to another topic and back, show exactly what is stored.
    await admin.reload();
    await admin.getByText('Every hand score shown is saved.').waitFor();
    const checkedOf = async () => {
      const checked: string[] = [];
      for (const system of ['a', 'b', 'c'])
        for (const criterion of ['informativeness', 'completeness', 'novelty', 'actionability'])
          for (let g = 0; g <= 5; g++)
            if (await radio(system, criterion, g).isChecked())
              checked.push(`${system} ${criterion} ${g}`);
      return checked;
    };
    await expect(checkedOf()).resolves.toEqual([
      'a informativeness 4',
      'a novelty 3',
      'b completeness 0',
    ]);
    await admin.getByLabel('Topic').selectOption('q2');
    await admin.getByText('A thin pressure jump.').waitFor();
    await admin.getByLabel('Topic').selectOption('q1');
    await admin.getByText('Aeroelastic coupling.').waitFor();
    await expect(checkedOf()).resolves.toEqual([
      'a informativeness 4',
      'a novelty 3',
      'b completeness 0',
    ]);

    // The LLM's scores arrive; while the person scores they stay hidden until asked for.
    const imported = await call('POST', '/response-sets/flutter-answers/score-sets/import', ADMIN, {
      name: 'llm',
      scores: LLM_SCORES,
      judge: 'answer-quality',
    });
    expect(imported.status).toBe(201);
    await admin.reload();
    await admin.getByRole('cell', { name: 'llm', exact: true }).waitFor();
    await answerOf('a').getByText('Aeroelastic coupling.').waitFor();
    expect(await admin.getByText('judge note on q1 a').count()).toBe(0);
    expect(await answerOf('b').locator('dd').count()).toBe(0);
    await admin.getByLabel(/Show machine scores/).check();
    await answerOf('a').getByText('judge note on q1 a').waitFor();
    await expect(answerOf('b').locator('dd').allTextContents()).resolves.toEqual([
      '1',
      '2',
      '2',
      '2',
    ]);
    await admin.screenshot({ path: join(shots, 'answers-side-by-side.png'), fullPage: true });
    await admin.getByLabel(/Show machine scores/).uncheck();

    // The person finishes systems a and b with the keyboard only: focus a criterion's
    // grade 0, then the arrow keys move the choice along 0–5.
    const human: Record<string, number[]> = { a: [4, 4, 2, 2], b: [1, 3, 2, 2] };
    const criteria = ['informativeness', 'completeness', 'novelty', 'actionability'];
    for (const [system, grades] of Object.entries(human)) {
      for (let k = 0; k < criteria.length; k++) {
        await radio(system, criteria[k]!, 0).focus();
        await admin.keyboard.press('Space');
        for (let i = 0; i < grades[k]!; i++) await admin.keyboard.press('ArrowRight');
        await expect(radio(system, criteria[k]!, grades[k]!).isChecked()).resolves.toBe(true);
      }
    }
    await admin.getByText('Every hand score shown is saved.').waitFor();
    await admin.getByText('2 answers are scored on every criterion').waitFor();
    await admin.reload();
    await admin.getByText('2 answers are scored on every criterion').waitFor();
    await admin.getByLabel('Score set name').fill('people');
    await admin.getByRole('button', { name: 'Store as a score set' }).click();
    await admin.getByRole('status').getByText('Saved 2 answers as score set “people”.').waitFor();

    // The stored score set holds exactly the grades the person gave.
    const sets = (await (await call('GET', '/response-sets/flutter-answers', ADMIN)).json()) as {
      scoreSets: Array<{ id: number; name: string }>;
    };
    const people = sets.scoreSets.find((s) => s.name === 'people')!;
    const stored = (await (await call('GET', `/score-sets/${people.id}`, ADMIN)).json()) as {
      rows: Array<{ topicId: string; system: string; scores: Record<string, number> }>;
    };
    expect(
      stored.rows.map((r) => [r.topicId, r.system, ...criteria.map((c) => r.scores[c])]).sort(),
    ).toEqual([
      ['q1', 'a', 4, 4, 2, 2],
      ['q1', 'b', 1, 3, 2, 2],
    ]);

    // Judge vs person over the two answers both scored: informativeness (4, 1) against
    // (4, 1) agrees exactly on both, exact agreement 1; completeness (5, 2) against (4, 3)
    // on neither, 0.
    await admin.getByRole('img', { name: 'Agreement of llm and people per criterion' }).waitFor();
    const table = admin.getByRole('table', { name: 'agreement per criterion' });
    await expect(
      table.getByRole('row').filter({ hasText: 'informativeness' }).locator('td').allTextContents(),
    ).resolves.toEqual(expect.arrayContaining(['informativeness', '2', '1.0000']));
    await expect(
      table.getByRole('row').filter({ hasText: 'completeness' }).locator('td').nth(2).textContent(),
    ).resolves.toBe('0.0000');

    // The report of the LLM's score set: win-rate bars per criterion and means.
    await admin.getByRole('form', { name: 'report' }).getByLabel('Score set').selectOption('llm');
    await admin.getByRole('button', { name: 'Show report' }).click();
    await admin.getByRole('img', { name: 'Win rate on informativeness (normalised)' }).waitFor();
    // System a's informativeness: (4 + 5) / 2 = 4.5 over both topics.
    const means = admin.getByRole('table', { name: 'means with 95% intervals' });
    await expect(
      means.getByRole('row').filter({ hasText: /^a/ }).locator('td').nth(2).textContent(),
    ).resolves.toMatch(/^4\.50 \[/);
    await admin.screenshot({ path: join(shots, 'answers-agreement-report.png'), fullPage: true });
    expect(alerted).toBe(false);
  }, 240_000);

  it('keeps a label given after the token was revoked, sends it after a new sign-in, loses none', async () => {
    const added = await call('POST', '/users', ADMIN, { name: 'cy', role: 'annotator' });
    expect(added.status).toBe(201);
    const cy = (await added.json()) as { id: number; token: string };
    const items = ['d1', 'd2', 'd3', 'd5', 'd6', 'd7'].map((docno, i) => ({
      topic: i < 3 ? '1' : '2',
      docno,
    }));
    const made = await call('POST', '/collections/aero/campaigns', ADMIN, {
      name: 'revoked',
      items,
      judge: 'graded-0-3',
      annotators: ['cy'],
    });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: number };

    const page = await signedIn(cy.token, `/annotate/${id}`);
    await page.getByText('Progress: 0 of 6').waitFor();
    await keysTaken(page);
    await page.keyboard.press('1');
    await page.getByText('Progress: 1 of 6').waitFor();
    // The admin revokes Cy's tokens; her next grade is refused with 401 and kept.
    expect((await call('POST', `/users/${cy.id}/revoke`, ADMIN)).status).toBe(200);
    await keysTaken(page);
    await page.keyboard.press('2');
    const waiting = page.getByRole('region', { name: 'labels not saved' });
    await waiting.getByText('1 label not saved: sign in again to send it').waitFor();
    await page.getByRole('region', { name: 'sign in again' }).waitFor();
    // Keys say why they do nothing now.
    await page.keyboard.press('3');
    await page.getByText('Grade 3 ignored: sign in again first').waitFor();
    // A reload keeps the label and the sign-in screen; it never sits on "Saving…".
    await page.reload();
    await waiting.getByText('1 label not saved: sign in again to send it').waitFor();
    await page.getByRole('region', { name: 'sign in again' }).waitFor();
    expect(await page.getByText('Saving…').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'annotate-signed-out.png'), fullPage: true });
    // Someone else's token is not taken for Cy's label.
    await page.getByLabel('API token').fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in and send' }).click();
    await page.getByText(/That token is admin's; what waits here was given by cy/).waitFor();
    // A new token of Cy's sends it.
    const issued = await call('POST', `/users/${cy.id}/tokens`, ADMIN);
    expect(issued.status).toBe(201);
    const { token: fresh } = (await issued.json()) as { token: string };
    await page.getByLabel('API token').fill(fresh);
    await page.getByRole('button', { name: 'Sign in and send' }).click();
    await page.getByText('Progress: 2 of 6').waitFor();
    await page.getByText('All labels saved.').waitFor();
    await keysTaken(page);
    await page.keyboard.press('0');
    await page.getByText('Progress: 3 of 6').waitFor();

    // Stored: the three grades she gave, 1, 2 and 0, in the order given (items are served
    // in order), none lost.
    const labels = (await (
      await call('GET', `/collections/aero/label-sets/revoked/labels`, ADMIN)
    ).json()) as Array<{ topicId: string; docId: string; grade: number }>;
    const given = labels.map((l) => [l.topicId, l.docId, l.grade]).sort();
    expect(given).toHaveLength(3);
    expect(given.map((l) => l[2]).sort()).toEqual([0, 1, 2]);
    const campaign = (await (await call('GET', `/campaigns/${id}`, ADMIN)).json()) as {
      annotators: Array<{ name: string; done: number }>;
    };
    expect(campaign.annotators.find((a) => a.name === 'cy')?.done).toBe(3);
  }, 240_000);

  it('shows a clear page for a bad labelling address and for admin pages out of reach', async () => {
    const added = await call('POST', '/users', ADMIN, { name: 'dee', role: 'annotator' });
    const dee = (await added.json()) as { token: string };
    const page = await signedIn(dee.token, '/annotate/abc');
    await page.getByTestId('missing').getByText('"abc" is not a campaign').waitFor();
    await page.goto(`${base}/annotate/999`);
    await page
      .getByTestId('missing')
      .getByText('There is no campaign 999 with items for you')
      .waitFor();
    // A campaign of other people's: the same page.
    const others = (await (
      await call('GET', '/collections/aero/campaigns', ADMIN)
    ).json()) as Array<{
      id: number;
      name: string;
    }>;
    const revoked = others.find((c) => c.name === 'revoked')!;
    await page.goto(`${base}/annotate/${revoked.id}`);
    await page
      .getByTestId('missing')
      .getByText(`There is no campaign ${revoked.id} with items for you`)
      .waitFor();
    expect(await page.getByText('Saving…').count()).toBe(0);
    expect(
      await page
        .getByRole('button')
        .filter({ hasText: /^\d – / })
        .count(),
    ).toBe(0);

    // An annotator on an admin page: one message, no admin requests.
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/')) requests.push(new URL(r.url()).pathname);
    });
    await page.goto(`${base}/admin/collections/aero`);
    await page
      .getByText('These pages are for admins; you are signed in as dee (annotator).')
      .waitFor();
    expect(requests.filter((r) => r !== '/api/me')).toEqual([]);

    // An admin on an unknown collection: one message, and the page stops refreshing.
    const admin = await signedIn(ADMIN, '/admin/collections/nope');
    const asked: string[] = [];
    admin.on('request', (r) => {
      if (r.url().includes('/judge-jobs')) asked.push(r.url());
    });
    await admin.getByRole('alert').getByText('no collection').waitFor();
    // Three refresh periods later (3 s each) nothing more was asked for.
    await admin.waitForTimeout(9_500);
    expect(asked.length).toBeLessThanOrEqual(1);
    expect(await admin.getByRole('alert').count()).toBe(1);
  }, 240_000);

  it('asks before an invite link replaces the signed-in account', async () => {
    const added = await call('POST', '/users', ADMIN, { name: 'eve', role: 'annotator' });
    const eve = (await added.json()) as { token: string };
    const page = await signedIn(ADMIN, '/');
    await page.getByText('admin (admin)').waitFor();
    // The token the page keeps (read in the browser, whose globals the test does not type).
    const token = () =>
      page.evaluate(() =>
        (
          globalThis as unknown as { localStorage: { getItem(k: string): string | null } }
        ).localStorage.getItem('assay.token'),
      );
    await page.goto(`${base}/#token=${encodeURIComponent(eve.token)}`);
    const ask = page.getByRole('dialog', { name: 'switch account' });
    await ask.getByText('You are signed in as admin (admin).').waitFor();
    await ask.getByText('This invite link signs in eve (annotator).').waitFor();
    // The token left the address bar, and nothing changed yet.
    expect(page.url()).toBe(`${base}/`);
    expect(await token()).toBe(ADMIN);
    await page.screenshot({ path: join(shots, 'invite-confirm.png'), fullPage: true });
    await ask.getByRole('button', { name: 'Stay admin' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await token()).toBe(ADMIN);
    await page.reload();
    await page.getByText('admin (admin)').waitFor();

    // A link whose token the server does not know cannot switch.
    await page.goto(`${base}/#token=assay_not-a-real-token-000000000000`);
    await ask.getByText("The server does not accept this invite link's token").waitFor();
    expect(await ask.getByRole('button', { name: /^Switch to/ }).count()).toBe(0);
    await ask.getByRole('button', { name: 'Stay admin' }).click();
    expect(await token()).toBe(ADMIN);

    // Accepting switches.
    await page.goto(`${base}/#token=${encodeURIComponent(eve.token)}`);
    await ask.getByRole('button', { name: 'Switch to eve' }).click();
    await page.getByText('eve (annotator)').waitFor();
    expect(await token()).toBe(eve.token);

    // Signed out, a link signs in at once, as before.
    const fresh = await signedIn(eve.token, '/');
    await fresh.getByText('eve (annotator)').waitFor();
  }, 240_000);
});
