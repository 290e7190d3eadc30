import { describe, expect, it } from 'vitest';
import { reflowed } from '../../src/text/rag/ask/reflow.js';

describe('answers copied from hard-wrapped text', () => {
  it('join the wrapped lines of prose, indented or not', () => {
    expect(reflowed("This way xz shouldn't run out\n    of memory.")).toBe("This way xz shouldn't run out of memory.");
    expect(reflowed('You may charge a reasonable copying fee for any distribution of this\nPackage.')).toBe(
      'You may charge a reasonable copying fee for any distribution of this Package.',
    );
    expect(reflowed('gzseek() and gztell() may be limited to 4 GB depending on how\r\n    zlib is compiled.')).toBe(
      'gzseek() and gztell() may be limited to 4 GB depending on how zlib is compiled.',
    );
    expect(reflowed('The keys are not passphrase protected;\nit might or might not be the desirable thing.')).toBe(
      'The keys are not passphrase protected; it might or might not be the desirable thing.',
    );
    expect(reflowed('In short, something like\n    this is a good start: xz --check=crc32 --lzma2=preset=6e,dict=64KiB')).toBe(
      'In short, something like this is a good start: xz --check=crc32 --lzma2=preset=6e,dict=64KiB',
    );
  });

  it('keep a blank line between paragraphs, and make runs of spaces one', () => {
    expect(reflowed('The first paragraph ends\n  here.\n\n  The second one\n  follows.')).toBe('The first paragraph ends here.\n\nThe second one follows.');
    expect(reflowed('GNU LESSER GENERAL PUBLIC LICENSE           Version 2.1, February 1999')).toBe(
      'GNU LESSER GENERAL PUBLIC LICENSE Version 2.1, February 1999',
    );
  });

  it('leave code, prompts and lists line by line', () => {
    const code = "const logger = pino({\n  transport: {\n    target: 'pino/file'\n  }\n})";
    expect(reflowed(code)).toBe(code);
    const shell = 'Run these:\n$ ./configure --prefix=/usr\n$ make';
    expect(reflowed(shell)).toBe(shell);
    const list = 'Two kinds are kept:\n* still reachable blocks\n* possibly lost blocks';
    expect(reflowed(list)).toBe(list);
    const numbered = 'The steps:\n1. unpack the archive\n2. run make';
    expect(reflowed(numbered)).toBe(numbered);
    const statements = 'const a = 1;\nconst b = 2;';
    expect(reflowed(statements)).toBe(statements);
  });

  it('join one list item wrapped over two lines: it is no list', () => {
    expect(reflowed('* Linux allows to bind a socket to any address of range 127.0.0.0/8, not\n   only 127.0.0.1.')).toBe(
      '* Linux allows to bind a socket to any address of range 127.0.0.0/8, not only 127.0.0.1.',
    );
  });

  it('leave an answer on one line with single spaces as it is', () => {
    expect(reflowed('the Mozilla Foundation')).toBe('the Mozilla Foundation');
  });
});

describe('answers with a block of commands', () => {
  it('keep the lines of an indented block that the width did not break, and join the prose before it', () => {
    const answer =
      'You can download and install it using the vcpkg dependency\n  manager:\n\n' +
      '    git clone https://github.com/Microsoft/vcpkg.git\n    cd vcpkg\n    ./bootstrap-vcpkg.sh\n    ./vcpkg integrate install\n    vcpkg install jansson';
    expect(reflowed(answer)).toBe(
      'You can download and install it using the vcpkg dependency manager:\n\n' +
        'git clone https://github.com/Microsoft/vcpkg.git\ncd vcpkg\n./bootstrap-vcpkg.sh\n./vcpkg integrate install\nvcpkg install jansson',
    );
  });

  it('still join prose filled to its width over many lines', () => {
    const prose =
      'This program is distributed in the hope that it will be useful,\n    but WITHOUT ANY WARRANTY; without even the implied warranty of\n' +
      '    MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the\n    GNU General Public License for more details.';
    expect(reflowed(prose)).toBe(
      'This program is distributed in the hope that it will be useful, but WITHOUT ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE. See the GNU General Public License for more details.',
    );
  });

  it('join each paragraph of prose and keep a code paragraph after it', () => {
    expect(reflowed('Build it with\n  these lines.\n\n  ./configure\n  make\n  make install\n  make check')).toBe(
      'Build it with these lines.\n\n./configure\nmake\nmake install\nmake check',
    );
  });
});
