// An extractive answer is copied from its passage, and a passage of plain text keeps the line breaks and indentation
// of the file: licences, FAQs and READMEs are written hard-wrapped at about 72 characters, often indented, so the
// answer read "This way xz shouldn't run out\n    of memory." An answer of prose is shown as it reads: its wrapped lines
// joined, one space between words, a blank line still between paragraphs. A paragraph with a line of code or a
// prompt, a list of items, or lines broken where the width did not force it (an indented block of commands) keeps
// every line as it is in the document, less its common indentation, since there the lines mean something.

/** A list item ("- ", "* ", "2. ", "b) "): a list's lines mean something, one item wrapped over two lines does not. */
const LIST_ITEM = /^\s*(?:[-*+\u2022]\s|\d{1,3}[.)]\s|[a-z]\)\s)/i;

/**
 * A line of code: a shell prompt or comment ("$ ", "# ", "//"), a line that opens or closes a block ("{", "(", "[" at
 * its end, a closing bracket at its start), a statement's ";" at its end (after an "=" or a bracket: prose ends lines
 * with ";" too), an arrow ("=>"), or a tag. A function's name in prose ("gzseek() may be limited") is prose.
 */
const CODE_LINE = /^\s*(?:[$#>%]\s|\/\/|\/\*|[}\])]|<\/?[a-z])|[{([\\]\s*$|^(?=.*[=()]).*;\s*$|=>/i;

/**
 * Room a wrapping editor would have left: a line this much shorter than the paragraph's longest, with the next line's
 * first word, was broken by its writer, not by the width. Hand-wrapped prose is not always filled to the last column.
 */
const SLACK = 10;
/** No prose is wrapped narrower than this: a paragraph of short lines ("make", "make install") was broken by hand. */
const MIN_WIDTH = 50;
/** Two such lines at least: one short line may be a heading (a manual's option name before its description). */
const MIN_BREAKS = 2;

/**
 * Whether lines between the first and the last were broken by their writer (MIN_BREAKS of them): the next line's first
 * word would have fitted after it within the paragraph's longest line (or MIN_WIDTH). Wrapping fills every line but the
 * last (and the first of an answer may start mid-line), so wrapped prose has no such line; a block of commands has
 * many ("cd vcpkg").
 */
function brokenByWriter(lines: string[]): boolean {
  const trimmed = lines.map((line) => line.trim());
  const width = Math.max(MIN_WIDTH, ...trimmed.map((line) => line.length));
  const broken = trimmed.slice(1, -1).filter((line, i) => {
    const next = trimmed[i + 2]!.split(/\s/)[0]!.length;
    return line.length > 0 && line.length + 1 + next + SLACK <= width;
  });
  return broken.length >= MIN_BREAKS;
}

/** Whether a paragraph's lines mean something: a line of code, two list items or more, or lines its writer broke. */
function keepsLines(lines: string[]): boolean {
  return lines.some((line) => CODE_LINE.test(line)) || lines.filter((line) => LIST_ITEM.test(line)).length >= 2 || brokenByWriter(lines);
}

/** The paragraph's lines less the indentation the lines after the first share (the first may start mid-line). */
function dedented(lines: string[]): string {
  const rest = lines.slice(1).filter((line) => line.trim());
  const common = rest.length ? Math.min(...rest.map((line) => /^[ \t]*/.exec(line)![0].length)) : 0;
  return [lines[0]!.trimStart(), ...lines.slice(1).map((line) => line.slice(common))].join('\n').trimEnd();
}

/** The answer with the wrapped lines of its prose joined (see the header); paragraphs whose lines mean something kept. */
export function reflowed(answer: string): string {
  if (!/\n|[ \t]{2}/.test(answer)) return answer;
  return answer
    .replace(/^(?:[ \t]*\r?\n)+/, '')
    .split(/[ \t]*\r?\n(?:[ \t]*\r?\n)+/)
    .map((paragraph) => paragraph.split(/\r?\n/))
    .map((lines) => (keepsLines(lines) ? dedented(lines) : lines.join(' ').replace(/\s+/g, ' ').trim()))
    .filter((paragraph) => paragraph)
    .join('\n\n');
}
