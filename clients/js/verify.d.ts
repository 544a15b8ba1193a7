// Types of verify.js: a game record's chance checked without the server (SPEC 2.13, 10.4, 10.6).

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lower-case hex digits. */
export function sha256(text: string): string;

/** The commit generator of SPEC 10.4 (MT19937 keyed by the commit's seed and seq). */
export class CommitRng {
  constructor(seed: string, seq: number);
  /** The next 32-bit output. */
  next32(): number;
  /** The top `k` bits (1 <= k <= 32) of the next output. */
  getrandbits(k: number): number;
  /** A uniform integer in [0, n), as SPEC 10.4's _randbelow draws it. */
  below(n: number): number;
  randrange(n: number): number;
  choice<T>(items: readonly T[]): T;
  /** `items` shuffled in place, as SPEC 10.4 shuffles. */
  shuffle<T>(items: T[]): T[];
  /** `k` distinct items of `population`, as SPEC 10.6 samples. */
  sample<T>(population: readonly T[], k: number): T[];
}

/** One JSON value per non-empty line of a record's JSON Lines text. */
export function parseRecord(text: string): unknown[];

export type Verdict = { ok: true; checked: number[] } | { ok: false; seq: number; reason: string };

/** Re-runs every draw of a record (its text, or its parsed lines): the seqs checked, or the
 * first commit whose events are not what the seed draws (seq 0: the header or the seed). */
export function verifyChance(record: string | unknown[]): Verdict;
