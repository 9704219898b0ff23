// Every Ref exchange release the repository vendors (near/vm/wasm/, SOURCES.md there), oldest first, and what a
// release name on the command line may be.

export const REF_RELEASES = ['1.6.2', '1.7.2', '1.8.0', '1.9.4', '1.9.16', '1.9.17'] as const;
export type RefRelease = (typeof REF_RELEASES)[number];

/** A release named on the command line (default the newest); an unknown one is refused with the list. */
export function parseRefRelease(release: string | undefined): RefRelease {
  if (release === undefined || release === '') return REF_RELEASES.at(-1)!;
  const known = REF_RELEASES.find((r) => r === release);
  if (known === undefined) throw new Error(`Ref release "${release}" is not vendored: expected one of ${REF_RELEASES.join(', ')}`);
  return known;
}

/** `swap_by_output` (instant swaps with `amount_out`) came with Ref 1.9.4. */
export const refHasSwapByOutput = (release: RefRelease): boolean => REF_RELEASES.indexOf(release) >= REF_RELEASES.indexOf('1.9.4');
