import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Locates public evaluation data that assay may not redistribute (TREC runs, MS MARCO
 * passages). It lives in `../shared/data` beside a checkout (override with
 * ASSAY_SHARED_DATA). A user's clone has none, so tests that need it skip; CI sets
 * ASSAY_REQUIRE_SHARED_DATA=1 and then a missing folder fails instead of skipping.
 */
export const SHARED_DATA =
  process.env.ASSAY_SHARED_DATA ??
  fileURLToPath(new URL('../../../../shared/data/', import.meta.url));

/**
 * Absolute path of `relative` under the shared data folder, or undefined when absent.
 * @public for tests that read the shared data
 */
export function sharedData(relative: string): string | undefined {
  const path = `${SHARED_DATA.replace(/\/$/, '')}/${relative}`;
  if (existsSync(path)) return path;
  if (process.env.ASSAY_REQUIRE_SHARED_DATA === '1') {
    throw new Error(
      `shared data ${path} is required here (ASSAY_REQUIRE_SHARED_DATA=1) but missing`,
    );
  }
  return undefined;
}

/**
 * Reason shown for tests skipped because the shared data is absent.
 * @public for tests that read the shared data
 */
export const SHARED_DATA_SKIP = `needs ../shared/data beside the checkout (public TREC data assay does not ship)`;

/** True when `path` (inside the shared data folder) is absent; throws instead when CI requires it. */
export function missingSharedFile(path: string): boolean {
  if (existsSync(path)) return false;
  if (process.env.ASSAY_REQUIRE_SHARED_DATA === '1') {
    throw new Error(
      `shared data ${path} is required here (ASSAY_REQUIRE_SHARED_DATA=1) but missing`,
    );
  }
  return true;
}
