// gs_sh's variables (spec/surface.md §6.1): `set name value` defines one, `$name` in a statement is
// replaced by its value before the statement runs. Names are ASCII letters, digits and `_`, at
// most VARIABLE_NAME_LENGTH_MAX characters. Cluster and node definitions (setcluster, setnode)
// are variables too, whose `$name` stays as it is so that the sub-command taking it can find the
// definition. Also the statement's words (quotes group words and are remembered, since putrow
// tells 'text' from numbers) and GridDB's boolean spellings.

import { ShellError } from './shell-messages.ts';

export const VARIABLE_NAME_LENGTH_MAX = 256;
/** Variables a session may hold: a runaway script must not fill memory. */
export const VARIABLE_COUNT_MAX = 10_000;
const VARIABLE_NAME = /^[A-Za-z0-9_]+$/;
const REFERENCE = /\$([A-Za-z0-9_]+)/g;

export interface ClusterDefinition {
  kind: 'cluster';
  clusterName: string;
  /** The transaction services, `host:port[,host:port...]` (FIXED_LIST). */
  members: string;
  /** Node variables given after the members (for the cluster sub-commands). */
  nodes: string[];
}

export interface NodeDefinition {
  kind: 'node';
  host: string;
  /** The system service port (10040). */
  systemPort: number;
}

export type VariableValue = string | ClusterDefinition | NodeDefinition;

export class Variables {
  private readonly values = new Map<string, VariableValue>();

  set(name: string, value: VariableValue): void {
    if (!VARIABLE_NAME.test(name) || name.length > VARIABLE_NAME_LENGTH_MAX) {
      throw new ShellError(`The variable name "${name}" is wrong: use ASCII letters, digits and _ ` +
        `(at most ${VARIABLE_NAME_LENGTH_MAX}).`);
    }
    if (!this.values.has(name) && this.values.size >= VARIABLE_COUNT_MAX) {
      throw new ShellError(`At most ${VARIABLE_COUNT_MAX} variables can be defined.`);
    }
    this.values.set(name, value);
  }

  delete(name: string): boolean {
    return this.values.delete(name);
  }

  get(name: string): VariableValue | undefined {
    return this.values.get(name);
  }

  entries(): Array<[string, VariableValue]> {
    return [...this.values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  names(): string[] {
    return [...this.values.keys()];
  }

  /** `$name` replaced by the value of `name`; a cluster or node name is left as it is. */
  expand(text: string): string {
    return text.replace(REFERENCE, (whole, name: string) => {
      const value = this.values.get(name);
      if (value === undefined) {
        throw new ShellError(`The variable "${name}" is not defined. Define it with set ${name} <value>.`);
      }
      return typeof value === 'string' ? value : whole;
    });
  }

  /** The cluster a `$name` word refers to. */
  cluster(word: string | undefined): ClusterDefinition & { variable: string } {
    const name = word?.startsWith('$') === true ? word.slice(1) : word;
    const value = name === undefined ? undefined : this.values.get(name);
    if (name === undefined || value === undefined || typeof value === 'string' || value.kind !== 'cluster') {
      throw new ShellError(`"${word ?? ''}" is not a cluster variable: define one with ` +
        'setcluster <name> <clusterName> FIXED_LIST <host:port>.');
    }
    return { ...value, variable: name };
  }

  /** The node a `$name` word refers to. */
  node(word: string | undefined): NodeDefinition & { variable: string } {
    const name = word?.startsWith('$') === true ? word.slice(1) : word;
    const value = name === undefined ? undefined : this.values.get(name);
    if (name === undefined || value === undefined || typeof value === 'string' || value.kind !== 'node') {
      throw new ShellError(`"${word ?? ''}" is not a node variable: define one with ` +
        'setnode <name> <host> <systemPort>.');
    }
    return { ...value, variable: name };
  }
}

export interface Word {
  text: string;
  /** Written in quotes ('text' or "text"): always a string. */
  quoted: boolean;
}

/** The words of a statement: spaces separate them, quotes group them ('it''s' keeps one '). */
export function splitWords(text: string): Word[] {
  const words: Word[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    const quote = text[i];
    if (quote === '\'' || quote === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new ShellError(`A quote ${quote} is not closed: ${text}`);
        if (text[i] === quote) {
          if (text[i + 1] === quote) {
            value += quote;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
      words.push({ text: value, quoted: true });
      continue;
    }
    const start = i;
    while (i < text.length && !/\s/.test(text[i]!)) i++;
    words.push({ text: text.slice(start, i), quoted: false });
  }
  return words;
}

const TRUE_WORDS = ['yes', 'on', 'true', '1'];
const FALSE_WORDS = ['no', 'off', 'false', '0'];

/** GridDB's boolean arguments: yes, no, on, off, true, false, 1, 0 (any case). */
export function parseBoolean(word: string | undefined, command: string): boolean {
  const lower = word?.toLowerCase();
  if (lower !== undefined && TRUE_WORDS.includes(lower)) return true;
  if (lower !== undefined && FALSE_WORDS.includes(lower)) return false;
  throw new ShellError(`${command} takes one of yes, no, on, off, true, false, 1, 0; not ` +
    `"${word ?? ''}".`);
}
