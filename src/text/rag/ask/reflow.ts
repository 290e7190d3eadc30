// An extractive answer is copied from its passage, and a passage of plain text keeps the line breaks and indentation
// of the file: licences, FAQs and READMEs are written hard-wrapped at about 72 characters, often indented, so the
// answer read "This way xz shouldn't run out\n    of memory." An answer of prose is shown as it reads: its wrapped lines
// joined, one space between words, a blank line still between paragraphs. An answer with a line of code or a prompt,
// or a list of items, keeps every line as it is in the document, since there the lines mean something.

/** A list item ("- ", "* ", "2. ", "b) "): a list's lines mean something, one item wrapped over two lines does not. */
const LIST_ITEM = /^\s*(?:[-*+\u2022]\s|\d{1,3}[.)]\s|[a-z]\)\s)/i;

/**
 * A line of code: a shell prompt or comment ("$ ", "# ", "//"), a line that opens or closes a block ("{", "(", "[" at
 * its end, a closing bracket at its start), a statement's ";" at its end (after an "=" or a bracket: prose ends lines
 * with ";" too), an arrow ("=>"), or a tag. A function's name in prose ("gzseek() may be limited") is prose.
 */
const CODE_LINE = /^\s*(?:[$#>%]\s|\/\/|\/\*|[}\])]|<\/?[a-z])|[{([\\]\s*$|^(?=.*[=()]).*;\s*$|=>/i;

/** Whether the answer's lines mean something: a line of code, or two list items or more. */
function keepsLines(answer: string): boolean {
  const lines = answer.split(/\r?\n/);
  return lines.some((line) => CODE_LINE.test(line)) || lines.filter((line) => LIST_ITEM.test(line)).length >= 2;
}

/** The answer with the wrapped lines of its prose joined (see the header); unchanged when its lines mean something. */
export function reflowed(answer: string): string {
  if (!/\n|[ \t]{2}/.test(answer) || keepsLines(answer)) return answer;
  return answer
    .trim()
    .split(/[ \t]*\r?\n(?:[ \t]*\r?\n)+[ \t]*/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' '))
    .join('\n\n');
}
