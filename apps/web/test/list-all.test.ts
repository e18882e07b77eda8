import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../src/lib/api.js';

/** A fake `/api/users` holding five users, served two a page with cursors "p2", "p3". */
function fakeServer(requested: string[]) {
  const pages: Record<string, { items: string[]; next: string | null }> = {
    '': { items: ['ada', 'bob'], next: 'p2' },
    p2: { items: ['cy', 'dee'], next: 'p3' },
    p3: { items: ['eve'], next: null },
  };
  return async (input: string | URL | Request) => {
    const url = new URL(String(input), 'http://assay.test');
    requested.push(`${url.pathname}${url.search}`);
    const page = pages[url.searchParams.get('after') ?? '']!;
    const headers = new Headers({ 'content-type': 'application/json' });
    if (page.next !== null) headers.set('x-next-cursor', page.next);
    return new Response(JSON.stringify(page.items.map((name) => ({ name }))), { headers });
  };
}

describe('lists of the typed client', () => {
  beforeEach(() => {
    vi.stubGlobal('localStorage', {
      getItem: () => null,
      setItem: () => undefined,
      removeItem: () => undefined,
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('follow X-Next-Cursor to the last page and return every item once, in order', async () => {
    const requested: string[] = [];
    vi.stubGlobal('fetch', fakeServer(requested));
    const users = await api.users();
    expect(users.map((u) => u.name)).toEqual(['ada', 'bob', 'cy', 'dee', 'eve']);
    expect(requested).toEqual(['/api/users', '/api/users?after=p2', '/api/users?after=p3']);
  });

  it('add the cursor to a path that already has a query', async () => {
    const requested: string[] = [];
    vi.stubGlobal('fetch', fakeServer(requested));
    await api.reports('demo');
    expect(requested).toEqual([
      '/api/reports?collection=demo',
      '/api/reports?collection=demo&after=p2',
      '/api/reports?collection=demo&after=p3',
    ]);
  });
});
