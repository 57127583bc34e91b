// Challenge-response authentication: the digest is the one the password file stores, and a proof
// is bound to its nonce, client, user, cluster and database.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  authProof, authProofsEqual, isPasswordDigestHex, passwordDigestHex,
} from '../../../lib/protocol/auth-proof.ts';

const transcript = {
  nonce: new Uint8Array(32).fill(1), clientId: new Uint8Array(16).fill(2), user: 'admin',
  clusterName: 'myCluster', database: 'public',
};

describe('auth proof', () => {
  it('keys by the lower-case hex SHA-256 of the password, as the password file stores it', () => {
    // GridDB's own example: the digest of "admin" that its client sends at login.
    assert.equal(passwordDigestHex('admin'),
      '8c6976e5b5410415bde908bd4dee15dfb167a9c873fc4bb8a81f6f2ab448a918');
    assert.ok(isPasswordDigestHex(passwordDigestHex('pässwörd')));
    assert.ok(!isPasswordDigestHex('8C6976E5'));
  });

  it('is the same for the same transcript and password, and differs for any other', () => {
    const digest = passwordDigestHex('admin');
    const proof = authProof(digest, transcript);
    assert.equal(proof.byteLength, 32);
    assert.ok(authProofsEqual(proof, authProof(digest, { ...transcript })));
    const variants = [
      { ...transcript, nonce: new Uint8Array(32).fill(9) },
      { ...transcript, clientId: new Uint8Array(16) },
      { ...transcript, user: 'admin2' },
      { ...transcript, clusterName: 'other' },
      { ...transcript, database: 'db' },
    ];
    for (const variant of variants) assert.ok(!authProofsEqual(proof, authProof(digest, variant)));
    assert.ok(!authProofsEqual(proof, authProof(passwordDigestHex('Admin'), transcript)));
    assert.ok(!authProofsEqual(proof, proof.subarray(0, 31)));
  });
});
