import { describe, expect, test } from 'vitest';
import { reindentLines } from '../../../src/activities/editor/reindent.js';

describe('reindentLines', () => {
  test('leaves the replacement alone when search and file agree', () => {
    expect(reindentLines(['  a();', 'b();'], ['  x();'], ['  x();'])).toEqual(['  a();', 'b();']);
  });

  test('adds the file’s prefix when the file is deeper', () => {
    expect(reindentLines(['if (x) {', '  y();', '}'], ['x();'], ['    x();'])).toEqual(['    if (x) {', '      y();', '    }']);
  });

  test('removes the search’s prefix when the file is shallower', () => {
    expect(reindentLines(['        a();', '          b();'], ['        x();'], ['  x();'])).toEqual(['  a();', '    b();']);
  });

  test('applies the width delta to lines shallower than the search block', () => {
    expect(reindentLines(['        a();', '    }'], ['        x();'], ['      x();'])).toEqual(['      a();', '  }']);
  });

  test('never goes below column zero', () => {
    expect(reindentLines(['    a();', '}'], ['    x();'], ['x();'])).toEqual(['a();', '}']);
  });

  test('maps each search depth to the file depth it matched', () => {
    const search = ['if (x) {', '  y();', '}'];
    const matched = ['\tif (x) {', '\t\ty();', '\t}'];
    const replacement = ['if (x) {', '  y();', '  z();', '}'];
    expect(reindentLines(replacement, search, matched)).toEqual(['\tif (x) {', '\t\ty();', '\t\tz();', '\t}']);
  });

  test('writes extra depth in the file’s tabs', () => {
    expect(reindentLines(['a {', '    b();', '}'], ['a {'], ['\ta {'])).toEqual(['\ta {', '\t\tb();', '\t}']);
  });

  test('writes extra depth in the file’s spaces', () => {
    expect(reindentLines(['\ta {', '\t\tb();'], ['\ta {'], ['  a {'])).toEqual(['  a {', '      b();']);
  });

  test('keeps blank lines as they are', () => {
    expect(reindentLines(['a();', '', '   ', 'b();'], ['x();'], ['  x();'])).toEqual(['  a();', '', '   ', '  b();']);
  });

  test('uses the first non-blank lines as the base', () => {
    expect(reindentLines(['a();'], ['', 'x();'], ['', '    x();'])).toEqual(['    a();']);
  });
});
