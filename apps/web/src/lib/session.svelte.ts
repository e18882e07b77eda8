import { api, getToken, setToken, type Me } from './api';

/** Who is signed in (null: nobody, or not known yet). */
export const session = $state<{ me: Me | null; checked: boolean }>({ me: null, checked: false });

/** Takes a token from an invite link (`/#token=…`) and removes it from the address bar. */
export function takeTokenFromLink(): void {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match) return;
  setToken(decodeURIComponent(match[1]!));
  history.replaceState(null, '', location.pathname + location.search);
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
