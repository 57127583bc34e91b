// POST /sql/dml/query (and /sql/select, /sql), /sql/dml/update (and /sql/update), /sql/ddl and
// /sql/dcl (spec/surface.md §1.6.14): one to `maxQueryNum` statements `[{"stmt": "..."}]`, run
// through the client's store.sql on the node (not JDBC: SQL always answers here, so `SQL is not
// active` never does). The statement-kind checks are GridDB's regular expressions over the
// lower-cased, trimmed statement, whole-statement and without crossing line breaks, as Java's
// String.matches does. A query failure ends the request with 400 and the error's number; an
// update or DDL failure is that statement's `status: 0` and `message`, and the next one runs. DCL
// (GRANT, REVOKE, SET PASSWORD) runs as the caller, whose privileges the node checks.

import { isStorageError } from '../../base/errors.ts';
import type { ClientStore } from '../../client/store-factory.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type { Row } from '../../schema/column-type.ts';
import { columnJson } from '../codec/column-json.ts';
import { ValueEncoder } from '../codec/value-encode.ts';
import { badRequest, WebApiError } from '../errors/webapi-error.ts';
import { requestContext, type WebApiDependencies } from '../http/request-context.ts';
import { sendJsonText } from '../http/reply.ts';
import type { RouteTable } from '../http/route-table.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import { SqlBody } from './body-schemas.ts';
import { responseSizeCheck } from './rows-query.ts';

const QUERY_PATTERN = /^(select|explain|explain +analyze).*$/;
const UPDATE_PATTERN = /^(update|delete|insert|replace).*$/;
const DDL_PATTERN = /^(create|alter|drop).*$/;
const DCL_PATTERN = /^(grant|revoke|set +password).*$/;

export function sqlRoutes(table: RouteTable, dependencies: WebApiDependencies): void {
  for (const [path, pattern] of [['/sql/dml/query', QUERY_PATTERN], ['/sql/select', undefined],
    ['/sql', undefined]] as const) {
    table.add('POST', path, async (request, reply) => {
      const context = requestContext(request, dependencies);
      const statements = statementsOf(request.body as SqlBody | undefined, context.settings, pattern);
      const text = await context.use(async (store) => {
        const parts: string[] = [];
        let totalSizeBytes = 0;
        for (const stmt of statements) {
          const part = await queryText(store, stmt, context.settings);
          totalSizeBytes += part.sizeBytes;
          responseSizeCheck(totalSizeBytes, context.settings.maxTotalResponseSizeBytes);
          parts.push(part.text);
        }
        return `[${parts.join(',')}]`;
      });
      return sendJsonText(reply, 200, text);
    }, { body: SqlBody });
  }
  for (const [path, pattern] of [['/sql/dml/update', UPDATE_PATTERN], ['/sql/update', undefined]] as const) {
    table.add('POST', path, async (request, reply) => {
      const context = requestContext(request, dependencies);
      const statements = statementsOf(request.body as SqlBody | undefined, context.settings, pattern);
      const answers = await context.use((store) => eachStatement(statements, async (stmt) => {
        const result = await store.sql(stmt);
        await result.close();
        return { updatedRows: result.updateCount ?? 0 };
      }, { updatedRows: 0 }));
      return sendJsonText(reply, 200, JSON.stringify(answers));
    }, { body: SqlBody });
  }
  for (const [path, pattern] of [['/sql/ddl', DDL_PATTERN], ['/sql/dcl', DCL_PATTERN]] as const) {
    table.add('POST', path, async (request, reply) => {
      const context = requestContext(request, dependencies);
      const statements = statementsOf(request.body as SqlBody | undefined, context.settings, pattern);
      const answers = await context.use((store) => eachStatement(statements, async (stmt) => {
        await (await store.sql(stmt)).close();
        return {};
      }, {}));
      return sendJsonText(reply, 200, JSON.stringify(answers));
    }, { body: SqlBody });
  }
}

/**
 * Runs the statements in order, each on its own: `{ ...run's fields, status: 1, message: null, stmt }`
 * for one that succeeds, `{ ...failed, status: 0, message, stmt }` for one that fails (§1.6.14: a
 * failure does not stop the statements after it).
 */
async function eachStatement(statements: readonly string[],
  run: (stmt: string) => Promise<Record<string, unknown>>, failed: Record<string, unknown>):
  Promise<unknown[]> {
  const out: unknown[] = [];
  for (const stmt of statements) {
    try {
      out.push({ ...(await run(stmt)), status: 1, message: null, stmt });
    } catch (error) {
      out.push({ ...failed, status: 0, message: failureMessage(error), stmt });
    }
  }
  return out;
}

function statementsOf(body: SqlBody | undefined, settings: WebApiSettings, pattern: RegExp | undefined):
  string[] {
  if (!Array.isArray(body) || body.length === 0) throw badRequest('List of SQL is empty');
  if (body.length > settings.maxQueryNum) throw badRequest('Exceed maximum of SQLs that can be executed');
  return body.map((item) => {
    if (item === null || typeof item !== 'object') throw badRequest('SQL input is invalid');
    const stmt = item.stmt;
    if (typeof stmt !== 'string' || stmt.trim() === '') throw badRequest('Statement is invalid');
    if (pattern !== undefined && !pattern.test(stmt.trim().toLowerCase())) {
      throw badRequest('Statement is invalid');
    }
    return stmt;
  });
}

async function queryText(store: ClientStore, stmt: string, settings: WebApiSettings):
  Promise<{ text: string; sizeBytes: number }> {
  let columns: readonly ColumnSchema[];
  let sqlTypes: readonly string[];
  let rows: Row[];
  try {
    const result = await store.sql(stmt);
    columns = result.columns;
    sqlTypes = result.sqlTypes;
    rows = await result.toArray();
  } catch (error) {
    if (isStorageError(error)) throw new WebApiError(400, failureMessage(error), error.errorNumber, { cause: error });
    throw error;
  }
  const encoder = new ValueEncoder(settings.timeZone);
  const rowsText = encoder.rows(columns, rows);
  responseSizeCheck(encoder.sizeBytes, settings.maxResponseSizeBytes);
  const columnsJson = columns.map((column, i) =>
    (sqlTypes[i] === 'UNKNOWN' ? { name: column.name, type: 'UNKNOWN' } : columnJson(column)));
  return {
    text: `{"columns":${JSON.stringify(columnsJson)},"results":${rowsText},` +
      `"responseSizeByte":${encoder.sizeBytes}}`,
    sizeBytes: encoder.sizeBytes,
  };
}

function failureMessage(error: unknown): string {
  if (isStorageError(error)) return `[${error.errorNumber}:${error.code}] ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
