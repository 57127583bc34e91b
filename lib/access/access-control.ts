// The node's access catalog in force: read from its file at start, changed by the SQL statements
// of §5.3 (and CREATE/DROP USER/DATABASE of §5.2) one at a time, each change on disk before it
// counts. Login checks and the per-request check (access-check.ts) read `catalog`.

import { StorageError } from '../base/errors.ts';
import { sha256Hex } from '../config/password-file.ts';
import { scramVerifierText } from '../config/scram-verifiers.ts';
import type { FileSystem } from '../io/file-system.ts';
import type { SqlStatement } from '../sql/ast-statements.ts';
import {
  AccessCatalog, DATABASE_PUBLIC, generalPasswordCheck, requireAdmin, type GeneralUser,
  type Principal,
} from './access-catalog.ts';
import { readAccessFile, writeAccessFile } from './access-file.ts';
import { DATABASE_ID_DROPPED, DATABASE_ID_PUBLIC } from '../schema/database-names.ts';

type AccessKind = 'createDatabase' | 'dropDatabase' | 'createUser' | 'dropUser' | 'setPassword' |
  'grant' | 'revoke';
/** The statements of the access catalog (access-check.ts sqlStatementOperation says 'access'). */
export type AccessStatement = SqlStatement extends infer S
  ? S extends { kind: infer K } ? K extends AccessKind ? S & { kind: K } : never : never : never;

export class AccessControl {
  private current: AccessCatalog;
  /** Changes run one after another: each reads the catalog the one before left. */
  private changes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly fileSystem: FileSystem,
    private readonly path: string,
    /** Told each catalog put in force, before its statement is answered ("#databases"). */
    private readonly onChange: (catalog: AccessCatalog) => Promise<void> = async () => {},
  ) {
    this.current = readAccessFile(fileSystem, path);
  }

  get catalog(): AccessCatalog {
    return this.current;
  }

  /**
   * Who logs in, or a refusal: a database other than public must exist, and a general user
   * needs a privilege on it (GridDB refuses the login with TXN_AUTH_FAILED otherwise).
   */
  loginCheck(principal: Principal): void {
    if (principal.database.toLowerCase() === DATABASE_PUBLIC) return;
    const database = this.current.database(principal.database);
    if (database === undefined) {
      throw new StorageError('DATABASE_NOT_FOUND',
        `database ${JSON.stringify(principal.database)} does not exist`);
    }
    if (!principal.admin && this.current.privilege(principal.user, database.name) === undefined) {
      throw new StorageError('AUTHENTICATION_FAILED', 'authentication failed: ' +
        `user ${principal.user} holds no privilege on database ${database.name}`);
    }
  }

  /**
   * The id of the database a principal logged in to (lib/schema/database-names.ts); one dropped
   * since has no containers any more, and its id is never given again.
   */
  databaseIdOf(principal: Principal): number {
    if (principal.database.toLowerCase() === DATABASE_PUBLIC) return DATABASE_ID_PUBLIC;
    return this.current.database(principal.database)?.id ?? DATABASE_ID_DROPPED;
  }

  /** Runs one statement of the access catalog for `principal`; resolves once it is durable. */
  run(statement: AccessStatement, principal: Principal): Promise<void> {
    const change = this.changes.then(async () => {
      const next = nextCatalog(this.current, statement, principal);
      if (next === this.current) return;
      await writeAccessFile(this.fileSystem, this.path, next);
      this.current = next;
      await this.onChange(next);
    });
    this.changes = change.catch(() => undefined);
    return change;
  }
}

function nextCatalog(catalog: AccessCatalog, statement: AccessStatement, actor: Principal):
  AccessCatalog {
  switch (statement.kind) {
    case 'createDatabase': return catalog.createDatabase(actor, statement.name.text);
    case 'dropDatabase': return catalog.dropDatabase(actor, statement.name.text);
    case 'createUser':
      requireAdmin(actor, 'CREATE USER');
      return catalog.createUser(actor,
        { name: statement.name.text, ...passwordOf(statement.password, statement.digest) });
    case 'dropUser': return catalog.dropUser(actor, statement.name.text);
    case 'setPassword':
      return catalog.setPassword(actor, statement.user?.text ?? actor.user,
        passwordOf(statement.password, statement.digest));
    case 'grant': case 'revoke': {
      const grant = { database: statement.database.text, user: statement.grantee.text,
        privilege: statement.privilege === 'SELECT' ? 'READ' as const : 'ALL' as const };
      return statement.kind === 'grant'
        ? catalog.grant(actor, grant) : catalog.revoke(actor, grant);
    }
  }
}

/**
 * The two digests a password is kept as: GridDB's SHA-256 and PostgreSQL's SCRAM verifier. Given
 * only the SHA-256 (`SHA256 'hex'`), no SCRAM verifier can be made: the user logs in wherever
 * the SHA-256 is checked, and on the PostgreSQL port only after a SET PASSWORD.
 */
function passwordOf(password: string, digest: true | undefined): Omit<GeneralUser, 'name'> {
  if (digest === true) {
    if (!/^[0-9a-fA-F]{64}$/.test(password)) {
      throw new StorageError('USER_INVALID', 'SHA256 \'…\' takes the SHA-256 digest of a password: ' +
        `64 hexadecimal digits, not ${password.length} characters`);
    }
    return { passwordSha256Hex: password.toLowerCase() };
  }
  generalPasswordCheck(password);
  return { passwordSha256Hex: sha256Hex(password), scramVerifier: scramVerifierText(password) };
}
