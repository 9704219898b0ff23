// Account ids and the token ids of the public API.
//
// API token ids: `near` (native NEAR), a bare contract account id or `nep141:<contract>` (a
// NEP-141 token), `inner-nep141:<contract>` (that token's inner balance at the AmmA exchange).

/** Account id rules of nearcore (near-account-id): 2..64 chars, lowercase alphanumeric parts
 * separated by single `-`, `_` or `.`, no separator at either end. Implicit ids (64 hex) and
 * ETH-implicit ids (`0x` + 40 hex) are valid by these same rules, lowercase only. */
const ACCOUNT_ID = /^(?:[a-z\d]+[-_])*[a-z\d]+(?:\.(?:[a-z\d]+[-_])*[a-z\d]+)*$/;
const IMPLICIT = /^[0-9a-f]{64}$/;
const ETH_IMPLICIT = /^0x[0-9a-f]{40}$/;

export function isValidAccountId(id: string): boolean {
  return id.length >= 2 && id.length <= 64 && ACCOUNT_ID.test(id);
}

/** NEAR-implicit account: the hex of an ed25519 public key. */
export function isImplicitAccountId(id: string): boolean {
  return IMPLICIT.test(id);
}

/** ETH-implicit account (wallet contract controlled by an Ethereum key). */
export function isEthImplicitAccountId(id: string): boolean {
  return ETH_IMPLICIT.test(id);
}

export type TokenId =
  | { kind: 'near' }
  | { kind: 'nep141'; contractId: string }
  | { kind: 'inner-nep141'; contractId: string };

export const NEAR_TOKEN_ID = 'near';
const NEP141_PREFIX = 'nep141:';
const INNER_PREFIX = 'inner-nep141:';

/**
 * Parses an API token id; null when it is not one. `near` always means native NEAR (the `near`
 * account is not a token contract); use `nep141:near` if it ever must name that account.
 */
export function parseTokenId(text: string): TokenId | null {
  if (text === NEAR_TOKEN_ID) return { kind: 'near' };
  if (text.startsWith(NEP141_PREFIX)) {
    const contractId = text.slice(NEP141_PREFIX.length);
    return isValidAccountId(contractId) ? { kind: 'nep141', contractId } : null;
  }
  if (text.startsWith(INNER_PREFIX)) {
    const contractId = text.slice(INNER_PREFIX.length);
    return isValidAccountId(contractId) ? { kind: 'inner-nep141', contractId } : null;
  }
  return isValidAccountId(text) ? { kind: 'nep141', contractId: text } : null;
}

/** Canonical text form: `near`, `nep141:<contract>` or `inner-nep141:<contract>`. */
export function formatTokenId(token: TokenId): string {
  switch (token.kind) {
    case 'near':
      return NEAR_TOKEN_ID;
    case 'nep141':
      return NEP141_PREFIX + token.contractId;
    case 'inner-nep141':
      return INNER_PREFIX + token.contractId;
  }
}
