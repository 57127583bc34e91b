// The two requests that open a connection: HELLO (the node answers with a fresh nonce) and AUTH
// (the client proves it knows the password, auth-proof.ts). The checks, in order: the cluster name
// (CLUSTER_NAME_INVALID), the database (DATABASE_NOT_FOUND: there is only `public`), then the proof
// (AUTHENTICATION_FAILED). A wrong user and a wrong password give the same error, after the same
// work: an unknown user's proof is checked against a digest no password has, so neither the answer
// nor its timing tells whether the user exists.

import type { Principal } from '../access/access-catalog.ts';
import { StorageError } from '../base/errors.ts';
import { USER_NAME_LENGTH_MAX } from '../base/limits.ts';
import { authProof, authProofsEqual, isPasswordDigestHex } from '../protocol/auth-proof.ts';
import type { AuthRequest } from '../protocol/messages-connection.ts';
import type { ResolvedServerOptions } from './server-options.ts';

export const DATABASE_PUBLIC = 'public';
/** What an unknown user's proof is checked against: not the digest of any password. */
const DIGEST_OF_NO_PASSWORD = '0'.repeat(64);
const APPLICATION_NAME_LENGTH_MAX = 256;

/**
 * Throws the StorageError that refuses the connection, or returns who logged in when the client
 * may proceed (options.loginCheck decides the database and the privileges).
 */
export async function authenticate(
  options: ResolvedServerOptions,
  nonce: Uint8Array,
  request: AuthRequest,
): Promise<Principal> {
  if (request.clusterName !== options.clusterName) {
    throw new StorageError('CLUSTER_NAME_INVALID', `cluster name ` +
      `${JSON.stringify(request.clusterName)} does not match the cluster of this node`);
  }
  if (options.loginCheck === undefined && request.database.toLowerCase() !== DATABASE_PUBLIC) {
    throw new StorageError('DATABASE_NOT_FOUND', `database ${JSON.stringify(request.database)} ` +
      `does not exist (there is only "${DATABASE_PUBLIC}")`);
  }
  if (request.applicationName.length > APPLICATION_NAME_LENGTH_MAX) {
    throw new StorageError('LIMIT_EXCEEDED',
      `an application name may have at most ${APPLICATION_NAME_LENGTH_MAX} characters`);
  }
  const known = request.user.length <= USER_NAME_LENGTH_MAX
    ? await options.lookupPasswordDigest(request.user) : undefined;
  const digestText = typeof known === 'string' ? known.toLowerCase() : undefined;
  const digest = digestText !== undefined && isPasswordDigestHex(digestText)
    ? digestText : undefined;
  const expected = authProof(digest ?? DIGEST_OF_NO_PASSWORD, {
    nonce, clientId: request.clientId, user: request.user,
    clusterName: request.clusterName, database: request.database,
  });
  if (!authProofsEqual(expected, request.proof) || digest === undefined) {
    throw new StorageError('AUTHENTICATION_FAILED',
      'authentication failed: the user name or the password is wrong');
  }
  return options.loginCheck?.({ user: request.user, database: request.database }) ??
    { user: request.user, admin: true, database: DATABASE_PUBLIC };
}
