/** A transaction's statement refused because the connection its BEGIN went to is gone. */
export class ConnectionLostError extends Error {
  readonly code = 'CONNECTION_LOST';

  constructor() {
    super('the connection to the database was lost during the transaction (rolled back)');
    this.name = 'ConnectionLostError';
  }
}

/** postgres.js's codes for a connection that closed, ended or never opened. */
const DRIVER_CODES = new Set([
  'CONNECTION_LOST',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
]);

/** Socket errors of a server that is down, restarting or unreachable. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOENT', // a Unix socket that is not there while the server restarts
]);

/**
 * Whether an error means the database could not be reached (down, restarting, shutting
 * down, the connection dropped) rather than that it refused a statement: trying again
 * later may succeed. Covers postgres.js's connection codes, socket errors and SQLSTATE
 * class 08 (connection exception) and 57P01–57P03 (shutdown, crash, cannot connect now).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (DRIVER_CODES.has(code) || SOCKET_CODES.has(code)) return true;
      if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code)) return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
