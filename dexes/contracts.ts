// The contract accounts behind each DEX id, per network: the one place these ids live. The devnet simulator uses
// the mainnet ids, so one table serves both (docs/near-facts.md, "The DEX ids").

export interface DexContracts {
  /** Ref classic exchange; also the inner-balance side of Wrap. */
  AmmA: string;
  AmmDclA: string;
  /** The Intear DEX engine and the id of its xyk DEX inside it. */
  AmmC: string;
  AmmCXykDexId: string;
  /** NEAR Intents verifier. */
  QuoteA: string;
  Launch: string;
  /** wNEAR. */
  Wrap: string;
  /** Meta Pool: NEAR <-> stNEAR (the contract is the token). */
  StakeA: string;
  /** LiNEAR: NEAR <-> LiNEAR (the contract is the token). */
  StakeB: string;
  /** xRHEA: RHEA (StakeCUnderlying) <-> xRHEA (StakeC, the staking contract is the token). */
  StakeC: string;
  StakeCUnderlying: string;
  /** rNEAR: NEAR <-> rNEAR (the contract is the token). */
  StakeD: string;
}

export const MAINNET_CONTRACTS: DexContracts = Object.freeze({
  AmmA: 'v2.ref-finance.near',
  AmmDclA: 'dclv2.ref-labs.near',
  AmmC: 'dex.intear.near',
  AmmCXykDexId: 'slimedragon.near/xyk',
  QuoteA: 'intents.near',
  Launch: 'aidols.near',
  Wrap: 'wrap.near',
  StakeA: 'meta-pool.near',
  StakeB: 'linear-protocol.near',
  StakeC: 'xtoken.rhealab.near',
  StakeCUnderlying: 'token.rhealab.near',
  StakeD: 'lst.rhealab.near',
});

// Testnet ids are the projects' published testnet deployments as far as we know them (unverified: no testnet
// fixture touches them); routing does not answer on testnet anyway.
export const TESTNET_CONTRACTS: DexContracts = Object.freeze({
  AmmA: 'ref-finance-101.testnet',
  AmmDclA: 'dclv2.ref-dev.testnet',
  AmmC: 'dex.intear.testnet',
  AmmCXykDexId: 'slimedragon.testnet/xyk',
  QuoteA: 'intents.testnet',
  Launch: 'aidols.testnet',
  Wrap: 'wrap.testnet',
  StakeA: 'meta-v2.pool.testnet',
  StakeB: 'linear-protocol.testnet',
  StakeC: 'xtoken.rhealab.testnet',
  StakeCUnderlying: 'token.rhealab.testnet',
  StakeD: 'lst.rhealab.testnet',
});

export function contractsOf(network: 'mainnet' | 'testnet'): DexContracts {
  return network === 'testnet' ? TESTNET_CONTRACTS : MAINNET_CONTRACTS;
}
