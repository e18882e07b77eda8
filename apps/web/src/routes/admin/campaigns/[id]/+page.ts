import { api } from '$lib/api';
import { settle, signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';

// The campaign, its agreement, the items to adjudicate and the people who could join load
// apart: one failing never hides the others.
export const load: PageLoad = async ({ params }) => {
  const id = Number(params.id);
  const admin = await signedInAsAdmin();
  const [campaign, agreement, disagreements, users] = await Promise.all([
    settle(() => api.campaign(id), admin),
    settle(() => api.agreement(id), admin),
    settle(() => api.disagreements(id, false), admin),
    settle(() => api.users(), admin),
  ]);
  return { id, campaign, agreement, disagreements, users: users.value ?? [] };
};
