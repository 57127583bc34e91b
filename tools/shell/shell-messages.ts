// gs_sh's messages (spec/surface.md §6.3): the texts GridDB's gs_sh prints, with its D2xxxx codes
// where GridDB defines one, and ShellError, the error a sub-command throws to print one of them.
// The shell prints the message and goes on (interactive) or stops (a script, unless told to
// continue); it never ends the process for bad input.

/** A sub-command's failure: its message is printed as it is. */
export class ShellError extends Error {}

export const MESSAGES = {
  connected: 'The connection attempt was successful(NoSQL).',
  disconnected: 'Disconnected connection attempt was successful.',
  queryExecuted: (count: number, ms: number) => `${count} results. (${ms} ms)`,
  /** A query not counted (sqlcount FALSE). */
  queryRan: (ms: number) => `The query had been executed. (${ms} ms)`,
  /** DML: verb is inserted, updated or deleted. */
  recordsChanged: (count: number, verb: string) => `The ${count} records had been ${verb}.`,
  acquired: (count: number) => `The ${count} results had been acquired.`,
  cancelled: 'The statement was cancelled (Ctrl-C).',
  noSuchCommand: (name: string) => `D20401: This sub command ${name} does not exist. The help sub ` +
    'command provides a list of all sub commands.',
  connectionClosed: 'D20302: This connection has already been closed(NoSQL). Connect with the ' +
    'connect sub command.',
  notExecuted: 'D20304: This query has not been executed yet.',
  containerExists: (name: string) => `D20322: This Container "${name}" already exists.`,
  databaseMissing: (name: string) => `D20340: This database "${name}" does not exists.`,
  containerMissing: (name: string) => `D20342: This container "${name}" does not exists.`,
  /** GridDB's text: the argument is `query id=[<id>]`. */
  killsqlQueryMissing: (queryId: string) => `D20367: This query "query id=[${queryId}]" does not exists.`,
  userNotSet: 'D20201: The username and password is not set. Set them by setuser sub command.',
  usage: (name: string, usage: string) => `The arguments of ${name} are wrong. Usage: ${name} ${usage}`,
} as const;
