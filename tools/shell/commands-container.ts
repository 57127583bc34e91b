// The container sub-commands (spec/surface.md §6.2, §6.3 for the layouts): showcontainer and
// showtable list the containers or show one (columns, indexes), searchcontainer lists the names
// matching a pattern; createcollection and createtimeseries create one (its first column is the
// row key), dropcontainer drops one; putrow writes a row ('text' quoted, null for NULL, other values
// as gs_export prints them), removerow deletes a row by its key; createindex and dropindex.

import { isStorageError } from '../../lib/base/errors.ts';
import type { ClientStore, ContainerDefinition, ContainerInfo } from '../../lib/client/store-factory.ts';
import type { ScalarValue, Value } from '../../lib/schema/column-type.ts';
import type { ColumnSchema, IndexType } from '../../lib/schema/container-schema.ts';
import { parseArray, parseScalar, ValueProblem } from '../expimp-values.ts';
import { DATABASE_PUBLIC } from './shell-connection.ts';
import { expectWords, type SubCommand } from './shell-command-table.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import { columnsText } from './shell-output.ts';
import type { Shell } from './shell.ts';
import type { Word } from './shell-variables.ts';

/** Containers showcontainer lists with their type and partition at most (a request each). */
const LISTED_CONTAINERS_MAX = 10_000;
const INDEX_TYPES: readonly IndexType[] = ['TREE', 'SPATIAL'];

async function store(shell: Shell): Promise<ClientStore> {
  return shell.guard(shell.connection.require());
}

async function infoOf(shell: Shell, name: string): Promise<ContainerInfo> {
  const info = await shell.guard((await store(shell)).getContainerInfo(name));
  if (info === undefined) throw new ShellError(MESSAGES.containerMissing(name));
  return info;
}

function typeName(column: ColumnSchema): string {
  const digits = { MILLISECOND: '', MICROSECOND: '(6)', NANOSECOND: '(9)' }[column.timePrecision ?? 'MILLISECOND'];
  return `${column.type}${column.type === 'TIMESTAMP' ? digits : ''}${column.array ? '[]' : ''}`;
}

async function showContainer(shell: Shell, words: Word[]): Promise<void> {
  const name = words[0]?.text;
  if (name === undefined) {
    const names = await shell.guard((await store(shell)).getContainerNames());
    const rows = [['Name', 'Type', 'PartitionId']];
    for (const each of names.slice(0, LISTED_CONTAINERS_MAX)) {
      shell.checkCancel();
      const info = await shell.guard((await store(shell)).getContainerInfo(each));
      if (info !== undefined) rows.push([info.name, info.type, String(info.partitionId).padStart(11)]);
    }
    const width = Math.max(20, ...rows.map((row) => row[0]!.length));
    const lines = columnsText(rows, [width, 11]).split('\n');
    shell.io.out([`Database : ${DATABASE_PUBLIC}`, lines[0]!, '-'.repeat(45), ...lines.slice(1)].join('\n'));
    if (names.length > LISTED_CONTAINERS_MAX) {
      shell.io.out(`(the first ${LISTED_CONTAINERS_MAX} of ${names.length} containers)`);
    }
    return;
  }
  const info = await infoOf(shell, name);
  const lines = [
    `Database    : ${DATABASE_PUBLIC}`, `Name        : ${info.name}`, `Type        : ${info.type}`,
    `Partition ID: ${info.partitionId}`, `DataAffinity: ${info.dataAffinity ?? '-'}`, '', 'Columns:',
    columnsText([['No', 'Name', 'Type', 'CSTR', 'RowKey']], [3, 21, 15, 5]), '-'.repeat(78),
    ...info.columns.map((column, i) => columnsText([[String(i).padStart(2), column.name, typeName(column),
      column.notNull ? 'NN' : '', i < info.rowKeyColumnCount ? '[RowKey]' : '']], [3, 21, 15, 5])),
  ];
  for (const index of info.indexes) {
    lines.push('', 'Indexes:', `Name        : ${index.name}`.trimEnd(), `Type        : ${index.type}`, 'Columns:',
      'No  Name', '-'.repeat(26),
      ...index.columnIndexes.map((column, i) => `${String(i).padStart(2)}  ${info.columns[column]?.name ?? column}`));
  }
  shell.io.out(lines.join('\n'));
}

/** `%` any text, `_` one character, `\` escapes either (searchcontainer). */
function patternOf(text: string): RegExp {
  let source = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\\' && i + 1 < text.length) source += escape(text[++i]!);
    else if (char === '%') source += '.*';
    else if (char === '_') source += '.';
    else source += escape(char);
  }
  return new RegExp(`^${source}$`, 'i');
}

function escape(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `<col> <type> [<col> <type> ...]` of the create commands. */
function columnsOf(words: Word[], command: string): ContainerDefinition['columns'] {
  if (words.length === 0 || words.length % 2 !== 0) {
    throw new ShellError(`${command}: give each column as <name> <type> (e.g. ts TIMESTAMP value DOUBLE).`);
  }
  const columns: ContainerDefinition['columns'] = [];
  for (let i = 0; i < words.length; i += 2) columns.push({ name: words[i]!.text, type: words[i + 1]!.text });
  return columns;
}

async function create(shell: Shell, definition: ContainerDefinition): Promise<void> {
  const client = await store(shell);
  if (await shell.guard(client.getContainerInfo(definition.name)) !== undefined) {
    throw new ShellError(MESSAGES.containerExists(definition.name));
  }
  await shell.guard(client.putContainer(definition));
  shell.containerNames = undefined;
}

/** One value of putrow/removerow for its column: quoted text, null, or as gs_export prints it. */
function valueOf(column: ColumnSchema, word: Word): Value {
  if (!word.quoted && word.text.toLowerCase() === 'null') return null;
  if (column.type === 'BLOB') throw new ShellError(`Column "${column.name}": a BLOB value must be null in putrow.`);
  try {
    return column.array ? parseArray(column, word.text) : parseScalar(column, word.text);
  } catch (error) {
    if (error instanceof ValueProblem) {
      throw new ShellError(`Column "${column.name}" (${typeName(column)}): ${error.message}.`);
    }
    throw error;
  }
}

async function indexCommand(shell: Shell, words: Word[], drop: boolean): Promise<void> {
  const [name, column, ...types] = words.map((word) => word.text);
  const typeNames = (types.length === 0 ? ['TREE'] : types).map((type) => type.toUpperCase());
  for (const type of typeNames) {
    if (!INDEX_TYPES.includes(type as IndexType)) {
      throw new ShellError(`The index type ${type} is not supported: ${INDEX_TYPES.join(' or ')}.`);
    }
  }
  const container = await shell.guard((await store(shell)).getContainer(name!));
  if (container === undefined) throw new ShellError(MESSAGES.containerMissing(name!));
  for (const type of typeNames) {
    if (drop) await shell.guard(container.dropIndex(column!, type as IndexType));
    else await shell.guard(container.createIndex(column!, type as IndexType));
  }
}

export const CONTAINER_COMMANDS: SubCommand[] = [
  ...['showcontainer', 'showtable'].map((name): SubCommand => ({
    name, usage: '[<container>]', summary: 'list the containers, or show one (columns, indexes)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      await showContainer(shell, input.words);
    },
  })),
  ...['searchcontainer', 'searchview'].map((name): SubCommand => ({
    name, usage: '[<pattern>]',
    summary: `the ${name === 'searchview' ? 'view' : 'container'} names matching a pattern (% any, _ one character)`,
    async run(shell, input) {
      expectWords(input, 0, 1);
      const connected = await store(shell);
      // Views are no containers: searchview reads their names from "#views".
      const names = name === 'searchview'
        ? await shell.guard((async () => (await (await connected.sql('SELECT VIEW_NAME FROM "#views" ORDER BY VIEW_NAME'))
          .toArray()).map((row) => String(row[0])))())
        : await shell.guard(connected.getContainerNames());
      const pattern = patternOf(input.words[0]?.text ?? '%');
      const found = names.filter((each) => pattern.test(each));
      if (found.length > 0) shell.io.out(found.join('\n'));
    },
  })),
  {
    name: 'createcollection', usage: '<name> <column> <type> [<column> <type> ...]',
    summary: 'create a collection; its first column is the row key',
    async run(shell, input) {
      expectWords(input, 3, Number.MAX_SAFE_INTEGER);
      const [name, ...rest] = input.words;
      await create(shell, { name: name!.text, type: 'COLLECTION', columns: columnsOf(rest, input.name), rowKey: true });
    },
  },
  {
    name: 'createtimeseries', usage: '<name> NO <column> TIMESTAMP [<column> <type> ...]',
    summary: 'create a time series; its first column (TIMESTAMP) is the row key',
    async run(shell, input) {
      expectWords(input, 4, Number.MAX_SAFE_INTEGER);
      const [name, compression, ...rest] = input.words;
      if (compression!.text.toUpperCase() !== 'NO') {
        throw new ShellError(`The compression method ${compression!.text} is not supported: only NO ` +
          '(GridDB 5.0 removed SS and HI).');
      }
      await create(shell, { name: name!.text, type: 'TIME_SERIES', columns: columnsOf(rest, input.name), rowKey: true });
    },
  },
  {
    name: 'dropcontainer', usage: '<name>', summary: 'drop a container and its rows',
    async run(shell, input) {
      expectWords(input, 1);
      const name = input.words[0]!.text;
      if (!await shell.guard((await store(shell)).dropContainer(name))) {
        throw new ShellError(MESSAGES.containerMissing(name));
      }
      shell.containerNames = undefined;
    },
  },
  {
    name: 'putrow', usage: '<container> <value> [<value> ...]',
    summary: 'write a row (\'text\' in quotes, null for NULL); a row with the same key is replaced',
    async run(shell, input) {
      expectWords(input, 2, Number.MAX_SAFE_INTEGER);
      const [name, ...values] = input.words;
      const container = await shell.guard((await store(shell)).getContainer(name!.text));
      if (container === undefined) throw new ShellError(MESSAGES.containerMissing(name!.text));
      const columns = container.info.columns;
      if (values.length !== columns.length) {
        throw new ShellError(`putrow: ${name!.text} has ${columns.length} columns ` +
          `(${columns.map((column) => column.name).join(', ')}); ${values.length} values were given.`);
      }
      await shell.guard(container.put(values.map((word, i) => valueOf(columns[i]!, word))));
    },
  },
  {
    name: 'removerow', usage: '<container> <key> [<key> ...]',
    summary: 'delete the row of a key (every key column for a composite key)',
    async run(shell, input) {
      expectWords(input, 2, Number.MAX_SAFE_INTEGER);
      const [name, ...keys] = input.words;
      const container = await shell.guard((await store(shell)).getContainer(name!.text));
      if (container === undefined) throw new ShellError(MESSAGES.containerMissing(name!.text));
      const info = container.info;
      if (info.rowKeyColumnCount === 0) throw new ShellError(`removerow: ${info.name} has no row key.`);
      if (keys.length !== info.rowKeyColumnCount) {
        throw new ShellError(`removerow: the key of ${info.name} has ${info.rowKeyColumnCount} columns; ` +
          `${keys.length} values were given.`);
      }
      const values = keys.map((word, i) => valueOf(info.columns[i]!, word)) as ScalarValue[];
      if (values.includes(null as never)) throw new ShellError('removerow: a key cannot be null.');
      const key = values.length === 1 ? values[0] : values;
      try {
        await shell.guard(container.remove(key as never));
      } catch (error) {
        if (isStorageError(error)) throw new ShellError(`removerow: ${error.code}: ${error.message}`);
        throw error;
      }
    },
  },
  {
    name: 'createindex', usage: '<container> <column> TREE|SPATIAL ...', summary: 'create indexes on a column',
    async run(shell, input) {
      expectWords(input, 2, 4);
      await indexCommand(shell, input.words, false);
    },
  },
  {
    name: 'dropindex', usage: '<container> <column> TREE|SPATIAL ...', summary: 'drop indexes of a column',
    async run(shell, input) {
      expectWords(input, 2, 4);
      await indexCommand(shell, input.words, true);
    },
  },
];
