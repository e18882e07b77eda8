import { api, ApiError, getToken, setToken, type Me } from './api';

/** An invite link's token waiting for the signed-in person to accept or refuse it. */
export interface PendingInvite {
  token: string;
  /** Whom the link signs in (null: the server does not know its token). */
  who: Me | null;
}

/** Who is signed in (null: nobody, or not known yet), and an invite link waiting for a yes. */
export const session = $state<{ me: Me | null; checked: boolean; invite: PendingInvite | null }>({
  me: null,
  checked: false,
  invite: null,
});

/** Where app.html's first script puts an invite link's token when it drops it from the address. */
const LINK_TOKEN_KEY = 'assay.linkToken';

/**
 * The token of an invite link, or null: taken from the address before the router started
 * (app.html), or still in the address when the app is on the same page (a link opened on
 * a page already showing), and removed from both.
 */
function linkToken(): string | null {
  let raw: string | null = null;
  try {
    raw = sessionStorage.getItem(LINK_TOKEN_KEY);
    sessionStorage.removeItem(LINK_TOKEN_KEY);
  } catch {
    // no storage (a private window that refuses it): the address is all there is
  }
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (match) {
    raw = match[1]!;
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  if (!raw) return null;
  try {
    return decodeURIComponent(raw).trim() || null;
  } catch {
    return null;
  }
}

/** Who a token signs in: the person, null when the server refuses it, undefined when unsure. */
async function whoIs(token?: string): Promise<Me | null | undefined> {
  try {
    return await api.me(token);
  } catch (error) {
    return error instanceof ApiError && error.status === 401 ? null : undefined;
  }
}

/**
 * Takes a token from an invite link (`/#token=…`) and removes it from the address bar.
 * Nobody signed in (or a token the server no longer accepts): the link's token is used.
 * Someone signed in with another token: nothing changes until they accept the switch
 * (`session.invite` names who is signed in and whom the link is for).
 */
export async function takeTokenFromLink(): Promise<void> {
  const token = linkToken();
  if (!token || token === getToken()) return;
  if (!session.me) {
    setToken(token);
    session.me = (await whoIs()) ?? null;
    return;
  }
  session.invite = { token, who: (await whoIs(token)) ?? null };
}

let started: Promise<void> | null = null;

/**
 * The first check of a page load, made once (every caller waits for the same check): who
 * the stored token signs in, and an invite link's token taken (or, when someone is signed
 * in, put to them); `session.checked` is set only when both are known, so pages, and their
 * load functions, start with the token they will use.
 */
export function sessionStarted(): Promise<void> {
  return (started ??= startSession());
}

async function startSession(): Promise<void> {
  const token = linkToken();
  const stored = getToken();
  if (token && (!stored || token === stored)) setToken(token);
  session.me = getToken() ? ((await whoIs()) ?? null) : null;
  if (token && token !== getToken()) {
    if (session.me) session.invite = { token, who: (await whoIs(token)) ?? null };
    else {
      setToken(token);
      session.me = (await whoIs()) ?? null;
    }
  }
  session.checked = true;
}

/**
 * Switches to the invite link's account (the earlier token is forgotten on this device)
 * and opens the start page as that person.
 */
export function acceptInvite(): void {
  const invite = session.invite;
  if (!invite) return;
  session.invite = null;
  setToken(invite.token);
  location.assign('/');
}

/** Keeps the signed-in account and forgets the invite link's token. */
export function declineInvite(): void {
  session.invite = null;
}

/** Checks the stored token with the server. */
export async function refreshSession(): Promise<void> {
  if (!getToken()) {
    session.me = null;
    session.checked = true;
    return;
  }
  try {
    session.me = await api.me();
  } catch {
    session.me = null;
  }
  session.checked = true;
}

export async function signIn(token: string): Promise<boolean> {
  setToken(token.trim());
  await refreshSession();
  if (!session.me) setToken(null);
  return session.me !== null;
}

export function signOut(): void {
  setToken(null);
  session.me = null;
}
