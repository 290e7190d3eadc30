// Documents as a reader reads them. Markdown (a README saved as .txt, reference pages) is turned into plain
// paragraphs before chunking, so that markup never ends up inside an answer and never glues prose to code:
// - headings become sentences of their own;
// - a code block stays, without its fences, as a paragraph of its own (a command or a value can be the answer);
// - a Markdown table row becomes sentences naming each cell by its column ("Option: schemaTable. Required: Optional.");
//   a plain-text table (a header over a rule of dashes crossed by "+" or "|", as psql and many READMEs print) one
//   sentence per row, its cells joined by semicolons, instead of one run-on sentence of all its rows;
// - links keep their text, autolinks their address, images their alt text; emphasis, inline-code backticks and HTML
//   tags go.
// Plain text (a book, a licence, a transcript) is left as it is but for its tables, the markup of reStructuredText
// and AsciiDoc (when it looks like either) and its rule lines ("=====", "-----", "*****"), which carry no words: a rule
// under a one-line heading opens the prose that follows with the heading, as in Markdown, and any other rule ends a
// paragraph. A FAQ's "Q." and "A." line markers read as "Q:" and
// "A:", in plain text and Markdown alike. Only a document that looks like Markdown is parsed
// (marked's lexer), because Markdown rules misread plain text (an indented line is code there).
import { type Token, type Tokens, Lexer } from 'marked';

/**
 * Signs of Markdown: a fence, an ATX heading, a table separator row, an inline or a reference-style link, an HTML tag
 * of the usual kinds, strong emphasis.
 */
const MARKDOWN_SIGNS = [
  /^\s{0,3}(```|~~~)/m,
  /^#{1,6} \S/m,
  /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$/m,
  /\]\([^)\s]+\)/,
  /<\/?(code|pre|a|br|p|div|img|table|td|th|tr|kbd|em|strong)\b[^>]*>/i,
  // Reference-style links ("[www.openssl.org]: https://...", "[text][ref]", "[![badge]][ref]") and strong emphasis.
  /^\s{0,3}\[[^\]\n]+\]:\s+\S/m,
  /\]\[[^\]\n]*\]/,
  /(^|\s)\*\*[^*\s][^*\n]*\*\*(?=[\s.,;:!?)]|$)/m,
];

export function looksLikeMarkdown(text: string): boolean {
  return MARKDOWN_SIGNS.filter((re) => re.test(text)).length >= 2 || /^\s{0,3}```/m.test(text);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Inline Markdown and HTML as plain words. */
function inline(text: string): string {
  return (
    text
      .replace(/<!--[\s\S]*?-->/g, ' ')
      // A linked image, as a README's badge ("[![Build Status](ci.svg)](ci)"): nothing to read.
      .replace(/\[!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])?\](?:\([^)]*\)|\[[^\]]*\])/g, ' ')
      // Images, inline, reference-style or shortcut ("![logo](x.png)", "![logo][ref]"): their alt text.
      .replace(/!\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])?/g, '$1')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
      // Autolinks ("<https://example.org/>", "<name@example.org>"): the address is the text, not a tag.
      .replace(/<((?:[a-z][a-z0-9+.-]{1,31}:\/\/|mailto:)[^\s<>]+|[^\s<>@/]+@[^\s<>@/]+\.[a-z]{2,})>/gi, '$1')
      .replace(/<\/?[a-z][a-z0-9]*\b[^>]*>/gi, '')
      .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, e: string) => ENTITIES[e] ?? '')
      // A MyST role (Sphinx's Markdown: "{ref}`pip freeze`", "{ref}`--no-deps <install_--no-deps>`"): its text, not
      // its name or its target.
      .replace(/(?<![$\w`])\{[a-z][\w:.-]*\}`([^`<]*?)\s*(?:<[^`>]*>)?`/g, '$1')
      // A backslash that ends a line is a line break (CommonMark's hard break: "Type: `number`\\" over "Minimum: `1`").
      .replace(/\\(?=\n)/g, '')
      // A backslash escape ("availableParallelism \\* 1.5", "{string\\[]}") is its character; inside code it stays.
      .replace(/(`+)[^`]*\1|\\([\\`*_{}[\]()#+\-.!|<>~])/g, (m: string, ticks?: string, ch?: string) => (ticks ? m : ch!))
      .replace(/`+([^`]*)`+/g, '$1')
      .replace(/(\*\*|__)(?=\S)([^*_]*?\S)\1/g, '$2')
      .replace(/(^|[\s(])[*_](?=\S)([^*_\n]*?\S)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
      .replace(/[ \t]+/g, ' ')
      .trim()
  );
}

/** A sentence ends with a stop, so that the sentence splitter never runs it into the next one. */
const sentence = (s: string) => (s && !/[.!?:;]$/.test(s) ? `${s}.` : s);

/**
 * One sentence for a plain-text table row, each cell named by its column and the cells joined by semicolons, so that
 * one sentence holds a row's key and its value ("uid: 64001; name: mysql; description: mysql-server.").
 */
function rowSentence(header: string[], cells: string[]): string {
  const parts = cells
    .map((cell, i) => {
      const value = cell.replace(/[\s.;:,]+$/, '').trim();
      if (!value) return '';
      return header[i] ? `${header[i]}: ${value}` : value;
    })
    .filter(Boolean);
  return parts.length ? `${parts.join('; ')}.` : '';
}

/** A row's key, its first cell, when short enough to name the row in each of its other cells. */
const MAX_KEY_CHARS = 40;

/**
 * A Markdown table row as its cells, each a sentence naming its column and, past the first, the row's key: "Option:
 * schemaTable. Default of schemaTable: none.", so that the sentence that answers ("Hide date from debug output") also
 * holds the row it belongs to ("DEBUG_HIDE_DATE"). Rows as one sentence (rowSentence) were tried: on the development
 * halves the span reader then picked a column's name ("Description") as the answer, and one question went from right
 * to wrong.
 */
function table(t: Tokens.Table): string[] {
  const header = t.header.map((h) => inline(h.text));
  return t.rows.map((row) => {
    const key = inline(row[0]?.text ?? '').replace(/[.:;]+$/, '');
    const named = key.length > 0 && key.length <= MAX_KEY_CHARS && !/[.!?]\s/.test(key);
    return row
      .map((cell, i) => {
        const value = inline(cell.text);
        if (!value) return '';
        const column = i > 0 && named ? (header[i] ? `${header[i]} of ${key}` : key) : header[i];
        return column ? `${column}: ${sentence(value)}` : sentence(value);
      })
      .filter(Boolean)
      .join(' ');
  });
}

function list(l: Tokens.List): string[] {
  return l.items.flatMap((item) => blocks(item.tokens ?? []).map((p, i) => (i === 0 ? sentence(p) : p)));
}

/** An image, alone or as a link's text ("[![Build Status](ci.svg)](ci)", "![logo][ref]"). */
const IMAGE = /\[?!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])?(?:\]\([^)]*\)|\]\[[^\]]*\])?/g;
/**
 * A paragraph of images only, as a README's row of badges: their alt texts ("Build Status NPM version") say nothing
 * a question asks, and would stand between a heading and the prose it opens.
 */
const onlyImages = (raw: string) => {
  const rest = raw.replace(IMAGE, '');
  return rest !== raw && !rest.trim();
};

/**
 * An HTML table whose cells hold no text, only images and links (a README's table of badges under "Linux", "OS X",
 * "Coverage"): its header cells name badges, which say nothing a question asks.
 */
const badgeTable = (raw: string) => {
  if (!/<table\b/i.test(raw)) return false;
  const cells = [...raw.matchAll(/<td\b[^>]*>([\s\S]*?)<\/td>/gi)].map((m) => inline(m[1]!));
  return cells.length > 0 && cells.every((c) => !c);
};

/** Block tokens as paragraphs of plain text. */
function blocks(tokens: Token[]): string[] {
  const out: string[] = [];
  // A heading opens the prose that follows it, past any code or table between them ("Usage (promise API): Node v10+
  // is required ..."): alone, its few words would match a question better than the sentence that answers it. A heading
  // with no prose of its own before the next one is dropped (a table of contents, a section of code only).
  let heading = '';
  const push = (paragraph: string, prose: boolean) => {
    if (prose && heading) {
      out.push(`${heading.replace(/[.:;]$/, '')}: ${paragraph}`);
      heading = '';
    } else out.push(paragraph);
  };
  for (const t of tokens) {
    if (t.type === 'space') continue;
    switch (t.type) {
      case 'heading':
        heading = inline((t as Tokens.Heading).text);
        continue;
      case 'code':
        if ((t as Tokens.Code).text.trim()) push((t as Tokens.Code).text.trim(), false);
        break;
      case 'table':
        for (const row of table(t as Tokens.Table)) push(row, false);
        break;
      case 'list':
        list(t as Tokens.List).forEach((item, i) => push(item, i === 0));
        break;
      case 'blockquote':
        blocks((t as Tokens.Blockquote).tokens).forEach((p, i) => push(p, i === 0));
        break;
      case 'paragraph':
      case 'text':
      case 'html': {
        const raw = (t as Tokens.Paragraph).text;
        const s = inline(raw);
        if (s && !onlyImages(raw) && !badgeTable(raw)) push(s, true);
        break;
      }
      default:
        break; // hr, def: nothing to read
    }
  }
  return out;
}

/** A line made of one repeated mark (at least three, spaced or not), such as a heading's underline or a section break. */
const RULE = /^[ \t]*([=\-*~_#+])(?:[ \t]*\1){2,}[ \t]*$/;
const blank = (line: string | undefined) => line === undefined || line.trim() === '';

/**
 * Plain text without its rule lines. A one-line heading over a rule ("1. Definitions" over "-----") opens the next
 * paragraph ("1. Definitions: 1.1. ..."), or stands as a sentence of its own when another heading follows it; any
 * other rule becomes a paragraph break.
 */
function withoutRules(text: string): string {
  const lines = text.split('\n');
  if (!lines.some((line) => RULE.test(line))) return text;
  const isHeading = (i: number) =>
    !blank(lines[i]) && !RULE.test(lines[i]!) && (i === 0 || blank(lines[i - 1])) && RULE.test(lines[i + 1] ?? '') && !/[.!?;:]\s*$/.test(lines[i]!);
  const out: string[] = [];
  let pending: string | null = null;
  const flush = () => {
    if (pending !== null) out.push(`${pending}.`, '');
    pending = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isHeading(i)) {
      flush();
      pending = line.trim();
      i++; // its underline
    } else if (RULE.test(line)) {
      flush();
      if (!blank(out[out.length - 1])) out.push('');
    } else if (pending !== null && !blank(line)) {
      out.push(`${pending}: ${line.trimStart()}`);
      pending = null;
    } else if (pending === null) out.push(line);
  }
  flush();
  return out.join('\n');
}

/** A plain-text table's rule under its header: dashes (or "=") crossed by "+" or "|" ("----+-----", "|---|---|"). */
const TABLE_RULE = /^\s*[|+]?\s*[-=]{2,}\s*(?:[+|]\s*[-=]{2,}\s*)+[|+]?\s*$/;
/** A border line of a boxed table ("+-----+-----+"). */
const BORDER = /^\s*\+[-=+]+\+\s*$/;
const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

/**
 * Plain text's tables (a header line over a rule of dashes crossed by "+" or "|", then rows of cells split by "|")
 * as one sentence per row, each a paragraph of its own; everything else stays as it is.
 */
function plainTables(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1] ?? '';
    if (!line.includes('|') || !TABLE_RULE.test(next)) {
      out.push(line);
      continue;
    }
    const header = cellsOf(line);
    if (header.length < 2) {
      out.push(line);
      continue;
    }
    if (BORDER.test(out[out.length - 1] ?? '')) out.pop();
    const rows: string[] = [];
    let j = i + 2;
    for (; j < lines.length && (lines[j]!.includes('|') || BORDER.test(lines[j]!)); j++) {
      if (!BORDER.test(lines[j]!) && !TABLE_RULE.test(lines[j]!)) rows.push(rowSentence(header, cellsOf(lines[j]!)));
    }
    out.push('', ...rows.filter(Boolean).flatMap((r) => [r, '']));
    i = j - 1;
  }
  return out.join('\n');
}

/** A line opened by a FAQ's dotted marker ("Q. Why ...", "A. Yes."), which a name's initial could also open. */
const DOTTED_QUESTION = /^([ \t]{0,3})Q\.[ \t]+(?=\S)/gm;
const DOTTED_ANSWER = /^([ \t]{0,3})A\.[ \t]+(?=\S)/gm;

/**
 * A FAQ that marks its questions and answers "Q." and "A." at the start of their lines, marked "Q:" and "A:" as
 * other FAQs mark them, so that its questions are read as questions and its answers without their marker. Only a
 * document with at least two lines of each is read so: a line opened by an initial ("Q. Smith ...") is left alone.
 */
function colonFaqMarkers(text: string): string {
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  if (count(DOTTED_QUESTION) < 2 || count(DOTTED_ANSWER) < 2) return text;
  return text.replace(DOTTED_QUESTION, '$1Q: ').replace(DOTTED_ANSWER, '$1A: ');
}

/** Signs of reStructuredText (Python's and Sphinx's READMEs): a link or reference, a literal, a target, a directive. */
const RST_SIGNS = [/`[^`\n]+`__?(?!\w)/, /``[^`\n]+``/, /^\.\. _[^:\n]+:/m, /^\.\. [\w-]+::/m];
const looksLikeRst = (text: string) => RST_SIGNS.filter((re) => re.test(text)).length >= 2;

/**
 * reStructuredText's inline markup as plain words: a link or reference as its text ("`vcpkg <https://...>`_",
 * "`MIT license`_", "Sphinx_"), a literal without its backquotes ("``doc/``"), "::" before a literal block as one
 * colon; its link targets (".. _Sphinx: https://...") and directive lines (".. code-block:: bash", ".. image:: ..." with
 * its indented options) are not read.
 */
function rstInline(text: string): string {
  return (
    text
      // A directive's options, indented field lines under it (":target: https://...", ":alt: Build Status"), go too.
      .replace(/^\.\. (?:_[^:\n]+:|[\w-]+::).*(?:\n[ \t]+:[\w-]+:.*)*$/gm, '')
      // A paragraph that ends with "::" announces a literal block: one colon says so in prose.
      .replace(/(\S)::[ \t]*$/gm, '$1:')
      .replace(/`([^`<\n]+?)\s*<[^>\n]*>`__?(?!\w)/g, '$1')
      .replace(/``([^`\n]+)``/g, '$1')
      .replace(/`([^`\n]+)`__?(?!\w)/g, '$1')
      .replace(/\b([A-Za-z][\w-]*[A-Za-z0-9])_(?=[\s.,;:)]|$)/gm, '$1')
  );
}

/** AsciiDoc lines that both mark a document as AsciiDoc and are removed when it is read. */
const ASCIIDOC_CONTINUATION = /^\+[ \t]*$/gm;
const ASCIIDOC_ATTRIBUTE_LINE = /^\[(?:verse|source|listing|literal|NOTE|TIP|WARNING|IMPORTANT|CAUTION)\b[^\]\n]*\]$/gm;
/** The same pattern without the global flag, so that `test` keeps no position between calls. */
const once = (re: RegExp) => new RegExp(re.source, re.flags.replace('g', ''));
/**
 * Signs of AsciiDoc (git's manuals and many projects' docs saved as .txt): a line of a lone "+" (a list item's
 * continuation), a definition list's term ending in "::", an inline macro ("linkgit:git-log[1]", "link:url[text]"),
 * a block's attribute line ("[verse]", "[NOTE]").
 */
const ASCIIDOC_SIGNS = [
  once(ASCIIDOC_CONTINUATION),
  /^\S[^\n]*?::[ \t]*$/m,
  /\b(?:linkgit|link|xref|footnote|image|include):[^\s[\]]*\[[^\]\n]*\]/,
  once(ASCIIDOC_ATTRIBUTE_LINE),
];
const looksLikeAsciidoc = (text: string) => ASCIIDOC_SIGNS.filter((re) => re.test(text)).length >= 2;

/**
 * AsciiDoc's markup as plain text: a continuation line ("+") becomes a paragraph break, so that it never opens the
 * sentence after it; a definition list's term ends in one colon ("--squash::" reads "--squash:"); a macro reads as its
 * text, or as its target when it has none ("linkgit:git-log[1]" reads "git-log(1)"); attribute lines go.
 */
function asciidocInline(text: string): string {
  return text
    .replace(ASCIIDOC_CONTINUATION, '')
    .replace(/^(\S[^\n]*?)::(?=[ \t]|$)/gm, '$1:')
    .replace(/\blinkgit:([^\s[\]]+)\[(\d*)\]/g, (_, name: string, section: string) => (section ? `${name}(${section})` : name))
    .replace(/\b(?:link|xref|footnote):([^\s[\]]*)\[([^\]\n]*)\]/g, (_, target: string, label: string) => label || target)
    .replace(ASCIIDOC_ATTRIBUTE_LINE, '');
}

/** Plain text's own markup read as words: reStructuredText's or AsciiDoc's, when it looks like either. */
const plainMarkup = (text: string) => (looksLikeRst(text) ? rstInline(text) : looksLikeAsciidoc(text) ? asciidocInline(text) : text);

/** The document as plain paragraphs separated by blank lines (Markdown), or without its rule lines (anything else). */
export function readableText(original: string): string {
  const text = colonFaqMarkers(original.replace(/\r\n?/g, '\n'));
  if (!looksLikeMarkdown(text)) return withoutRules(plainTables(plainMarkup(text)));
  return blocks(new Lexer({ gfm: true }).lex(text)).join('\n\n');
}
