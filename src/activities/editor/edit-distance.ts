/**
 * Levenshtein distance with Myers' bit-vector algorithm, in the block form of "A fast bit-vector algorithm for
 * approximate string matching based on dynamic programming" (J. ACM 46(3), 1999), as edlib implements it. Each text
 * character costs one pass over ⌈m/32⌉ machine words instead of m cells, which is what keeps fuzzy matching of a
 * 20-line block against a 5,000-line file well under a second.
 */
export interface Pattern {
  length: number;
  blocks: number;
  /** Per character code, the bit set of the pattern positions holding it, 32 positions per block. */
  masks: Map<number, Int32Array>;
  absent: Int32Array;
  /** Bit of the pattern's last row within the last block. */
  lastRow: number;
}

export function compilePattern(text: string): Pattern {
  const blocks = Math.max(1, Math.ceil(text.length / 32));
  const masks = new Map<number, Int32Array>();
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    let mask = masks.get(code);
    if (!mask) {
      mask = new Int32Array(blocks);
      masks.set(code, mask);
    }
    mask[index >>> 5] |= 1 << (index & 31);
  }
  return { length: text.length, blocks, masks, absent: new Int32Array(blocks), lastRow: 1 << ((text.length - 1) & 31) };
}

/** Edits needed to turn the whole pattern into the whole text. */
export function computeEditDistance(pattern: Pattern, text: string): number {
  return runColumns(pattern, text, 1);
}

/**
 * For every prefix length `j` of `text`, the fewest edits that turn the pattern into some substring ending at `j`.
 * Any window of the text that ends at `j` is at least that far from the pattern, which makes it a cheap bound.
 */
export function computeSubstringDistances(pattern: Pattern, text: string): Int32Array {
  const distances = new Int32Array(text.length + 1);
  runColumns(pattern, text, 0, distances);
  return distances;
}

/**
 * `topRowStep` is the score step along the DP's first row: 1 for a global alignment, 0 when the match may start
 * anywhere in the text.
 */
function runColumns(pattern: Pattern, text: string, topRowStep: number, distances?: Int32Array): number {
  const { blocks, masks, absent, lastRow } = pattern;
  if (pattern.length === 0) return topRowStep * text.length;
  const positive = new Int32Array(blocks).fill(-1);
  const negative = new Int32Array(blocks);
  let score = pattern.length;
  if (distances) distances[0] = score;
  for (let column = 0; column < text.length; column++) {
    const equal = masks.get(text.charCodeAt(column)) ?? absent;
    let carry = topRowStep;
    for (let block = 0; block < blocks; block++) {
      const pv = positive[block]!;
      const mv = negative[block]!;
      let eq = equal[block]!;
      const xv = eq | mv;
      if (carry < 0) eq |= 1;
      const xh = (((eq & pv) + pv) ^ pv) | eq;
      let ph = mv | ~(xh | pv);
      let mh = pv & xh;
      const high = block === blocks - 1 ? lastRow : 1 << 31;
      const out = (ph & high) !== 0 ? 1 : (mh & high) !== 0 ? -1 : 0;
      ph <<= 1;
      mh <<= 1;
      if (carry < 0) mh |= 1;
      else if (carry > 0) ph |= 1;
      positive[block] = mh | ~(xv | ph);
      negative[block] = ph & xv;
      carry = out;
    }
    score += carry;
    if (distances) distances[column + 1] = score;
  }
  return score;
}
