// The shape of an answer a question asks for. "Which option ...?" is answered by an option ("-i", "--string-limit",
// "maxDepth"), "which file ...?" by a file or a path (".env", "/var/lib/git"), "which package ...?" by a package's name
// ("krb5-user"), "which version ...?" by a version ("2.22.1"), "which method ...?" by a method's name ("pool.query"):
// when the reader's span in its sentence is not written so, the best span of that sentence that is takes its place.

/** A question that asks for an option, a flag, an argument or a setting ("which flag lets strace print more of each string?"). */
const ASKS_OPTION = /\b(?:which|what)\b(?:\s+[\w-]+){0,2}?\s+(?:option|flag|switch|setting|parameter|directive|argument|arg)s?\b/i;
/** A span written as an option or an identifier: "-s", "--string-limit=N", "maxDepth", "USE_RESERVED_PORTS", "a=b". */
const OPTION_SHAPED = /^(?:-{1,2}[A-Za-z][\w-]*(?:=\S*)?|[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[\w.-]+=[\w.-]*)$/;
/** A question that asks for a file, a path or a folder ("which file does dotenv read by default?"), not its kind. */
const ASKS_FILE = /\b(?:which|what)\b(?:\s+[\w-]+){0,2}?\s+(?:file|filename|path|directory|folder)\b(?!\s+(?:extension|format|type|name\s+extension)s?\b)/i;
/** A span written as a file or a path: "/var/lib/git", "~/.toolrc", ".env", "package.json", "lib/index.js". */
const FILE_SHAPED =
  /^(?=.*\p{L})(?:[~.]{0,2}\/[\w.@+-]+(?:\/[\w.@+-]*)*|[\w@+-][\w.@+-]*(?:\/[\w.@+-]+)+|[\w@+-]+(?:\.[\w@+-]+)*\.\p{L}[\p{L}\d]{0,5}|\.\p{L}[\w.-]*)$/u;
/** A question that asks for a package, a module or a plugin ("which package do I need to get kinit?"), not its version. */
const ASKS_PACKAGE = /\b(?:which|what)\b(?:\s+[\w-]+){0,2}?\s+(?:package|module|library|plugin|crate|gem)s?\b(?!\s+(?:version|manager|format)s?\b)/i;
/** A span written as a package's name: lower case in parts ("krb5-user", "ajv-formats", "lodash.merge", "@scope/name"). */
const PACKAGE_SHAPED = /^(?=.*[a-z])(?:@[a-z0-9][\w.-]*\/)?[a-z0-9]+(?:[-_.+][a-z0-9]+)+$/;
/** A question that asks for a version ("which version of the gitignore spec does it follow?"). */
const ASKS_VERSION = /\b(?:which|what)\b(?:\s+[\w.-]+){0,3}?\s+versions?\b/i;
/** A span written as a version: "2.22.1", "v3", "1.11.3", "3.9.8-3", "Node.js 10+". */
const VERSION_SHAPED = /(?:^|\s)v?\d+(?:\.\d+)+(?:[-+][\w.]*)?$|(?:^|\s)v\d+$|^(?:\S+\s)?\d+\+$/;
/** A question that asks for a method or a function ("which method sends the form?", "method to fix X?"). */
const ASKS_METHOD = /\b(?:which|what)\b(?:\s+[\w.-]+){0,2}?\s+(?:method|function)s?\b|^\s*(?:method|function)s? (?:to|that|for)\b/i;
/** A span written as a method or a function: "recordValueWithExpectedInterval", "pool.query", "kill()", "queue.kill()". */
const METHOD_SHAPED = /^(?:[\w$]+\.)*[a-z_$][\w$]*[A-Z][\w$]*(?:\(\))?$|^(?:[\w$]{2,}\.)+[\w$]{2,}(?:\(\))?$|^[\w$.]+\(\)$/;
/** What a question asks for and how such an answer is written. */
const SHAPES: [RegExp, RegExp][] = [
  [ASKS_OPTION, OPTION_SHAPED],
  [ASKS_FILE, FILE_SHAPED],
  [ASKS_PACKAGE, PACKAGE_SHAPED],
  [ASKS_VERSION, VERSION_SHAPED],
  [ASKS_METHOD, METHOD_SHAPED],
];

/**
 * For a question that asks for an option (or a file): the best-scoring span of the chosen span's sentence that is
 * written as one, when the chosen span is not ("the -i option without further qualification" gave "option without
 * further qualification"); else the chosen span. The sentence stays the reader's.
 */
export function shapedSpan<S extends { i: number; text: string; score: number }>(question: string, chosen: S, spans: S[]): S {
  const shape = SHAPES.find(([asks]) => asks.test(question))?.[1];
  if (!shape || shape.test(chosen.text)) return chosen;
  const shaped = spans.filter((s) => s.i === chosen.i && shape.test(s.text));
  return shaped.length ? shaped.reduce((a, b) => (b.score > a.score ? b : a)) : chosen;
}
