// An extractive answer is copied from its passage, and a passage of plain text keeps the line breaks and indentation
// of the file: licences, FAQs and READMEs are written hard-wrapped at about 72 characters, often indented, so the
// answer read "This way xz shouldn't run out\n    of memory." An answer of prose is shown as it reads: its wrapped lines
// joined, one space between words, a blank line still between paragraphs. An answer with a line of code, a prompt or
// a list item keeps every line as it is in the document, since there the lines mean something.

/**
 * A line whose breaks mean something: a list item ("- ", "* ", "2. ", "b) "), a shell prompt or comment ("$ ", "# ", "//"),
 * a line that opens or closes a block ("{", "(", "[" at its end, a closing bracket at its start), a statement's ";" at
 * its end (after an "=" or a bracket: prose ends lines with ";" too), an arrow ("=>"), or a tag. A function's name in
 * prose ("gzseek() may be limited") is prose.
 */
const MEANINGFUL_LINE = /^\s*(?:[-*+\u2022]\s|\d{1,3}[.)]\s|[a-z]\)\s|[$#>%]\s|\/\/|\/\*|[}\])]|<\/?[a-z])|[{([\\]\s*$|^(?=.*[=()]).*;\s*$|=>/i;

/** The answer with the wrapped lines of its prose joined (see the header); unchanged when any line means something. */
export function reflowed(answer: string): string {
  if (!/\n|[ \t]{2}/.test(answer) || answer.split(/\r?\n/).some((line) => MEANINGFUL_LINE.test(line))) return answer;
  return answer
    .trim()
    .split(/[ \t]*\r?\n(?:[ \t]*\r?\n)+[ \t]*/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' '))
    .join('\n\n');
}
