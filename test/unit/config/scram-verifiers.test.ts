// conf/password.scram: the SCRAM-SHA-256 verifiers gs_adduser and gs_passwd write beside GridDB's
// SHA-256, the default ones, and a verifier made stale by a password changed without it.

import assert from 'node:assert/strict';
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { describe, it } from 'node:test';
import { createDefaultFiles } from '../../../lib/config/default-files.ts';
import { sha256Hex } from '../../../lib/config/password-file.ts';
import { scramVerifierOf, scramVerifierText } from '../../../lib/config/scram-verifiers.ts';
import { addUser, changePassword, readPasswordTable, removeUser } from '../../../lib/config/users.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

function verifierOf(fileSystem: SimFileSystem, user: string) {
  return scramVerifierOf(fileSystem, '/h', user, readPasswordTable(fileSystem, '/h').passwordDigestHex(user));
}

/** Whether `password` is the one a verifier was made of (the client's side of SCRAM). */
function matches(verifier: NonNullable<ReturnType<typeof verifierOf>>, password: string): boolean {
  const salted = pbkdf2Sync(password, Buffer.from(verifier.saltBase64, 'base64'), verifier.iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  return createHash('sha256').update(clientKey).digest().equals(verifier.storedKey);
}

describe('SCRAM verifiers', () => {
  it('makes PostgreSQL\'s verifier format', () => {
    const text = scramVerifierText('pencil', Buffer.alloc(16, 1));
    assert.match(text, /^SCRAM-SHA-256\$4096:AQEBAQEBAQEBAQEBAQEBAQ==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$/);
  });

  it('has default verifiers and follows gs_adduser, gs_passwd and gs_deluser', async () => {
    const fileSystem = new SimFileSystem({ seed: 18 });
    await createDefaultFiles(fileSystem, '/h');
    assert.ok(matches(verifierOf(fileSystem, 'admin')!, 'admin'));
    await addUser(fileSystem, '/h', { user: 'gs#ops', password: 'op-secret' });
    assert.ok(matches(verifierOf(fileSystem, 'gs#ops')!, 'op-secret'));
    await changePassword(fileSystem, '/h', { user: 'admin', password: 'n3w' });
    assert.ok(matches(verifierOf(fileSystem, 'admin')!, 'n3w'));
    assert.equal(matches(verifierOf(fileSystem, 'admin')!, 'admin'), false);
    await removeUser(fileSystem, '/h', 'gs#ops');
    assert.equal(verifierOf(fileSystem, 'gs#ops'), undefined);
  });

  it('ignores a verifier whose password the password file no longer has', async () => {
    const fileSystem = new SimFileSystem({ seed: 19 });
    await createDefaultFiles(fileSystem, '/h');
    assert.notEqual(scramVerifierOf(fileSystem, '/h', 'admin', sha256Hex('admin')), undefined);
    assert.equal(scramVerifierOf(fileSystem, '/h', 'admin', sha256Hex('changed elsewhere')), undefined);
    assert.equal(scramVerifierOf(fileSystem, '/h', 'admin', undefined), undefined);
  });
});
