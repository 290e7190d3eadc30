import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { looksLikeMarkdown, readableText } from '../../src/text/rag/readable.js';
import { splitSentences } from '../../src/text/sentences.js';

const README = [
  '# Widget',
  '',
  '[![build](https://ci.example/badge.svg)](https://ci.example) A **small** library for `widgets`.',
  '',
  '## Installation',
  '',
  '```sh',
  'npm install widget',
  '```',
  '',
  '## Options',
  '',
  '| Option | Type | Default | Description |',
  '|---|---|---|---|',
  '| `bodyLimit` | number | `1048576` | The largest body, in bytes. |',
  '| `logger` | boolean | `false` | Whether to log. |',
  '',
  'The <code>Content-Length</code> header is read first. See [the guide](https://example.org/guide) for more.',
  '',
  '- one item',
  '- another *item*',
  '',
  '## `parse(input)`',
  '',
  '<!-- YAML',
  'added: v1.2.0',
  '-->',
  '',
  'Parses the input. <!-- a note for editors --> It never throws.',
].join('\n');

describe('documents as a reader reads them', () => {
  const out = readableText(README);
  const paragraphs = out.split('\n\n');

  it('keeps no markup: fences, pipes, backticks, emphasis, HTML tags, link targets', () => {
    expect(out).not.toMatch(/```|\||`|\*\*|<\/?code>|https:\/\/|\]\(/);
  });

  it('reads no badge: a linked image is dropped, and a paragraph of images only opens nothing', () => {
    const text = readableText(
      [
        'pako',
        '=====',
        '',
        '[![Build Status](https://ci.example/pako.svg)](https://ci.example/pako)',
        '[![NPM version][npm-badge]][npm]',
        '',
        '![logo](logo.png)',
        '',
        '> zlib port to javascript, very fast!',
        '',
        '[npm-badge]: https://img.example/npm.svg',
        '[npm]: https://npm.example/pako',
      ].join('\n'),
    );
    expect(text.split('\n\n')[0]).toBe('pako: zlib port to javascript, very fast!');
    expect(text).not.toMatch(/Build Status|NPM version|logo/);
  });

  it('reads no HTML table of badges: cells of images only, under header cells that name them', () => {
    const text = readableText(
      [
        '<table><thead>',
        '  <tr>',
        '    <th>Linux</th>',
        '    <th>Coverage</th>',
        '  </tr>',
        '</thead><tbody><tr>',
        '  <td align="center">',
        '    <a href="https://ci.example/widgets"><img src="https://ci.example/widgets.svg" alt="Build Status" /></a>',
        '  </td>',
        '  <td align="center"><img src="https://cov.example/widgets.svg" alt="Coverage Status" /></td>',
        '</tr></tbody></table>',
        '',
        '# widgets',
        '',
        'widgets draws widgets on any terminal.',
        '',
        '<table><tr><th>Option</th><th>Meaning</th></tr><tr><td>wide</td><td>draws wider widgets</td></tr></table>',
      ].join('\n'),
    );
    expect(text).not.toMatch(/Linux|Coverage/);
    expect(text.split('\n\n')[0]).toBe('widgets: widgets draws widgets on any terminal.');
    // A table with text in its cells is read.
    expect(text).toMatch(/draws wider widgets/);
  });

  it('reads reStructuredText links, references and literals as their words, without targets or directives', () => {
    const text = readableText(
      [
        'Jansson is licensed under the `MIT license`_; see LICENSE.',
        '',
        'Install it with the `vcpkg <https://example.org/vcpkg/>`_ dependency manager:',
        '',
        '.. code-block:: bash',
        '',
        '    vcpkg install jansson',
        '',
        'The documentation source is in the ``doc/`` subdirectory; Sphinx_ builds it with the standard commands::',
        '',
        '   $ make html',
        '',
        '.. _MIT license: https://example.org/mit',
        '.. _Sphinx: https://example.org/sphinx',
        '',
        '.. image:: https://example.org/badge.svg',
        '   :target: https://example.org/ci',
        '   :alt: Build Status',
        '',
        '.. note::',
        '   The tests need a C compiler.',
      ].join('\n'),
    );
    expect(text).not.toMatch(/:target:|:alt:|Build Status/);
    expect(text).toContain('The tests need a C compiler.');
    expect(text).toContain('Jansson is licensed under the MIT license; see LICENSE.');
    expect(text).toContain('Install it with the vcpkg dependency manager:');
    expect(text).toContain('The documentation source is in the doc/ subdirectory; Sphinx builds it with the standard commands:\n');
    expect(text).toContain('vcpkg install jansson');
    expect(text).not.toMatch(/`|code-block|https:|\.\. _/);
    // Plain text with one pair of backquotes is not reStructuredText: it keeps them.
    expect(readableText('Run `make` first, then install_ it.')).toBe('Run `make` first, then install_ it.');
  });

  it('reads AsciiDoc (a manual saved as .txt) without its continuation lines, term colons, macros or attribute lines', () => {
    const text = readableText(
      [
        'OPTIONS',
        '-------',
        '--squash::',
        '\tImport only one commit from the subproject.',
        '+',
        'The result is one merge commit.',
        '',
        'sync <remote>::',
        '\tFetch the remote first; see linkgit:git-fetch[1] and link:https://example.org/guide.html[the guide].',
        '+',
        'After a successful sync, one commit ID is printed.',
        '',
        '[verse]',
        "'widget sync' [-q] <remote>",
      ].join('\n'),
    );
    // A continuation "+" carries no words: it never opens the sentence after it.
    expect(text).not.toMatch(/^\+/m);
    expect(text).toMatch(/^After a successful sync, one commit ID is printed\.$/m);
    expect(text).toMatch(/^The result is one merge commit\.$/m);
    expect(text).toContain('--squash:\n');
    expect(text).toContain('sync <remote>:\n');
    expect(text).toContain('see git-fetch(1) and the guide.');
    expect(text).not.toMatch(/\[verse\]|linkgit|link:|::/);
    // Plain text with one sign of AsciiDoc (a line ending in "::") is left alone.
    expect(readableText('Remember this::\nit is plain text.')).toBe('Remember this::\nit is plain text.');
  });

  it("reads a MyST role (Sphinx's Markdown) as its text, without its name or target", () => {
    const text = readableText(
      [
        '# Pinning',
        '',
        'Pinned requirements can be made with {ref}`pip freeze`; add {ref}`--no-deps <install_--no-deps>` for more.',
        '',
        'See [the guide](https://example.org/guide).',
      ].join('\n'),
    );
    expect(text.split('\n\n')[0]).toBe('Pinning: Pinned requirements can be made with pip freeze; add --no-deps for more.');
  });

  it('opens the prose under a heading with it, and keeps code as a paragraph of its own', () => {
    expect(paragraphs[0]).toBe('Widget: A small library for widgets.');
    expect(paragraphs).not.toContain('Installation.');
    expect(paragraphs).toContain('npm install widget');
  });

  it('keeps the address of an autolink, which is its text (a URL or an e-mail address can be the answer)', () => {
    const text = readableText(
      [
        '# Broker',
        '',
        'See [the docs](https://docs.example.org).',
        '',
        'A public test server is at <https://test.example.org/>.',
        '',
        'Write to <help@example.org> or see <b>the FAQ</b>.',
      ].join('\n'),
    );
    expect(text).toContain('A public test server is at https://test.example.org/.');
    expect(text).toContain('Write to help@example.org or see the FAQ.');
  });

  it('reads each table row as sentences naming each cell by its column and the row by its first cell', () => {
    expect(paragraphs).toContain(
      'Option: bodyLimit. Type of bodyLimit: number. Default of bodyLimit: 1048576. Description of bodyLimit: The largest body, in bytes.',
    );
  });

  it('reads a plain-text table (a header over a rule of dashes and "+") as one sentence per row', () => {
    const text = [
      'The following ports are assigned.',
      '',
      'Assigned ports:',
      '    port  | service        | notes',
      '    ------+----------------+-------------',
      '    8080  | web console    | admin only',
      '    9418  | git daemon     |',
      '',
      'Ask the operators before using another port.',
    ].join('\n');
    expect(looksLikeMarkdown(text)).toBe(false);
    const read = readableText(text)
      .split(/\n\s*\n/)
      .map((p) => p.trim());
    expect(read).toContain('port: 8080; service: web console; notes: admin only.');
    // One sentence a row: the port and its service are read together.
    expect(splitSentences('port: 8080; service: web console; notes: admin only.')).toHaveLength(1);
    expect(read).toContain('port: 9418; service: git daemon.');
    expect(read).toContain('Ask the operators before using another port.');
    expect(read.join(' ')).not.toMatch(/---|\|/);
  });

  it('reads a boxed plain-text table without its borders', () => {
    const text = ['+------+-------+', '| name | size  |', '+------+-------+', '| a.gz | 10 kB |', '| b.gz | 2 MB  |', '+------+-------+'].join('\n');
    expect(
      readableText(text)
        .split(/\n\s*\n/)
        .map((p) => p.trim())
        .filter(Boolean),
    ).toEqual(['name: a.gz; size: 10 kB.', 'name: b.gz; size: 2 MB.']);
  });

  it('leaves text with a pipe but no table rule as it is', () => {
    const text = 'Run ls | sort to list the files in order.\nThen read them.';
    expect(readableText(text)).toBe(text);
  });

  it('drops HTML comments (metadata blocks), and the heading opens the prose after them', () => {
    expect(out).not.toMatch(/YAML|added: v1|editors/);
    expect(paragraphs).toContain('parse(input): Parses the input. It never throws.');
  });

  it('keeps the words of links, HTML and lists', () => {
    expect(out).toContain('The Content-Length header is read first. See the guide for more.');
    expect(out).toContain('A small library for widgets.');
    expect(paragraphs).toContain('another item.');
  });

  it('reads plain text without its rule lines: an underlined heading opens the prose under it, a section break ends a paragraph', () => {
    const text = [
      'Package Notes',
      '=============',
      '',
      'Installation',
      '------------',
      '',
      'The package installs into /opt by default,',
      'and it can be moved.',
      '',
      'The end of part one.',
      '',
      '* * *',
      '',
      'Part two begins here.',
    ].join('\n');
    const read = readableText(text);
    expect(read).not.toMatch(/={3}|-{3}|\* \* \*/);
    const paragraphs = read.split(/\n\s*\n/).map((p) => p.trim());
    // A heading with another heading right under it stands alone; the last one runs into its prose.
    expect(paragraphs).toEqual([
      'Package Notes.',
      'Installation: The package installs into /opt by default,\nand it can be moved.',
      'The end of part one.',
      'Part two begins here.',
    ]);
    // A sentence that ends with a stop above a rule is not a heading: the rule only ends its paragraph.
    expect(readableText('Thanks for reading.\n-----\nMore text.').split(/\n\s*\n/)).toEqual(['Thanks for reading.', 'More text.']);
  });

  it('reads a README with only underlined headings, reference-style links and bold list items as Markdown', () => {
    const text = [
      'Welcome to the Project',
      '======================',
      '',
      '[![ci badge]][ci]',
      '',
      'The toolkit includes:',
      '',
      '- **libfoo**',
      '  an implementation of every protocol version up to 1.3 ([RFC 8446]).',
      '',
      '[ci]: https://ci.example.org/',
      '[RFC 8446]: https://www.rfc-editor.org/rfc/rfc8446',
    ].join('\n');
    expect(looksLikeMarkdown(text)).toBe(true);
    const read = readableText(text);
    expect(read).not.toMatch(/\*\*|\]\[|https:/);
    expect(read).toContain('libfoo');
    expect(read).toContain('an implementation of every protocol version up to 1.3');
  });

  it('reads a FAQ marked "Q." and "A." as one marked "Q:" and "A:", and leaves a line opened by an initial alone', () => {
    const faq =
      'Q. Why does the banner say two names?\nIs it wrong?\n\nA. No. Both names are valid.\n\nQ. How do I know which one I run?\n\nA. Read the sources list.';
    expect(readableText(faq)).toBe(
      'Q: Why does the banner say two names?\nIs it wrong?\n\nA: No. Both names are valid.\n\nQ: How do I know which one I run?\n\nA: Read the sources list.',
    );
    const names = 'The letter was signed by\nQ. Adams and by\nA. Smith, who wrote it.\n\nQ. Adams kept a copy.';
    expect(readableText(names)).toBe(names);
  });

  it('keeps plain text with one such sign (a footnote reference) as plain text', () => {
    const text = 'The tool was first released in 1993 [1].\n\n[1]: see the history file.';
    expect(looksLikeMarkdown(text)).toBe(false);
  });

  it('leaves plain text exactly as it is: a book chapter, licences, the sample addresses', () => {
    const plain = [
      'It was a truth universally acknowledged.\n\n    An indented line is not code here.\n\n1. A numbered line.',
      ...readdirSync(fromRoot('docs/sample-collection'))
        .filter((f) => f.endsWith('.txt'))
        .map((f) => readFileSync(fromRoot(`docs/sample-collection/${f}`), 'utf8')),
    ];
    for (const text of plain) {
      expect(looksLikeMarkdown(text)).toBe(false);
      expect(readableText(text)).toBe(text);
    }
  });
});

describe('Markdown backslash escapes', () => {
  it('read as the character they escape, outside code only', () => {
    const text = readableText(
      [
        '# Options',
        '',
        'See **the guide**.',
        '',
        '* `maxThreads` The default is the number of cores \\* 1.5.',
        '* `history` {string\\[]} Initial list; write `a\\*b` in code.',
      ].join('\n'),
    );
    expect(text).toContain('The default is the number of cores * 1.5.');
    expect(text).toContain('history {string[]} Initial list; write a\\*b in code.');
  });

  it('at the end of a line are line breaks (CommonMark hard breaks), not part of the words', () => {
    const text = readableText(
      ['# API', '', 'See [the docs](https://example.org).', '', 'Type: `number`\\', 'Minimum: `1`\\', 'Default: `Infinity`', '', 'Concurrency limit.'].join(
        '\n',
      ),
    );
    expect(text).toContain('Type: number\nMinimum: 1\nDefault: Infinity');
    expect(text).not.toContain('\\');
  });
});
