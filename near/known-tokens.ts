// Well-known mainnet NEP-141 tokens, bundled so the service can name and scale them before (or
// without) indexing their init calls. Decimals are the contracts' `ft_metadata().decimals`;
// symbols are the ones wallets and the aggregator display (the Rainbow Bridge tokens report
// their Ethereum symbol on chain, e.g. `USDC`; the `.e` suffix tells them from native issues).

export interface KnownToken {
  contractId: string;
  symbol: string;
  name: string;
  decimals: number;
  /** A data URL, or null: icons come from indexed metadata when we have none here. */
  icon: string | null;
}

export const KNOWN_MAINNET_TOKENS: readonly KnownToken[] = Object.freeze([
  { contractId: 'wrap.near', symbol: 'wNEAR', name: 'Wrapped NEAR fungible token', decimals: 24, icon: null },
  { contractId: 'usdt.tether-token.near', symbol: 'USDt', name: 'Tether USD', decimals: 6, icon: null },
  {
    contractId: '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1',
    symbol: 'USDC',
    name: 'USD Coin',
    decimals: 6,
    icon: null,
  },
  {
    contractId: 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.factory.bridge.near',
    symbol: 'USDC.e',
    name: 'USD Coin (bridged)',
    decimals: 6,
    icon: null,
  },
  {
    contractId: 'dac17f958d2ee523a2206206994597c13d831ec7.factory.bridge.near',
    symbol: 'USDT.e',
    name: 'Tether USD (bridged)',
    decimals: 6,
    icon: null,
  },
  {
    contractId: '6b175474e89094c44da98b954eedeac495271d0f.factory.bridge.near',
    symbol: 'DAI',
    name: 'Dai Stablecoin',
    decimals: 18,
    icon: null,
  },
  {
    contractId: '2260fac5e5542a773aa44fbcfedf7c193bc2c599.factory.bridge.near',
    symbol: 'WBTC',
    name: 'Wrapped BTC',
    decimals: 8,
    icon: null,
  },
  // The Aurora engine account is also the NEP-141 contract of bridged ETH (eth-connector).
  { contractId: 'aurora', symbol: 'ETH', name: 'Ether', decimals: 18, icon: null },
  { contractId: 'meta-pool.near', symbol: 'STNEAR', name: 'Staked NEAR', decimals: 24, icon: null },
  { contractId: 'linear-protocol.near', symbol: 'LINEAR', name: 'LiNEAR', decimals: 24, icon: null },
  { contractId: 'token.v2.ref-finance.near', symbol: 'REF', name: 'Ref Finance Token', decimals: 18, icon: null },
  { contractId: 'token.rhealab.near', symbol: 'RHEA', name: 'Rhea', decimals: 18, icon: null },
  { contractId: 'xtoken.rhealab.near', symbol: 'xRHEA', name: 'xRHEA', decimals: 18, icon: null },
  { contractId: 'lst.rhealab.near', symbol: 'rNEAR', name: 'rNEAR', decimals: 24, icon: null },
  { contractId: 'token.sweat', symbol: 'SWEAT', name: 'SWEAT', decimals: 18, icon: null },
].map((t) => Object.freeze(t)));

const BY_CONTRACT = new Map(KNOWN_MAINNET_TOKENS.map((t) => [t.contractId, t]));

export function findKnownToken(contractId: string): KnownToken | undefined {
  return BY_CONTRACT.get(contractId);
}
