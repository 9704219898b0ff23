// wNEAR (`wrap.near`) on the devnet: `near_deposit` mints what is attached (`Deposit <n> NEAR to <a>`),
// `near_withdraw {amount}` burns (`Withdraw <n> NEAR from <a>`) and sends the NEAR back with a Transfer receipt.
import { ONE_YOCTO } from './tokens.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

const TGAS = 10n ** 12n;
const NEAR = 10n ** 24n;

export class WrapDevnet implements DevnetDex {
  readonly id = 'Wrap' as const;

  genesis(world: World): void {
    this.wrap(world, world.treasury, 5_000_000n * NEAR);
    for (const wallet of world.wallets) this.wrap(world, wallet, world.rng.bigint(100n, 2_000n) * NEAR);
  }

  act(world: World, trader: string): void {
    const { rng, tokens, contracts } = world;
    const balance = tokens.balance(contracts.Wrap, trader);
    if (balance > NEAR && rng.chance(0.5)) this.unwrap(world, trader, rng.bigint(1n, balance / 10n));
    else this.wrap(world, trader, rng.bigint(NEAR / 10n, 50n * NEAR));
  }

  reserves(): Map<string, bigint[]> {
    return new Map();
  }

  wrap(world: World, account: string, amount: bigint): void {
    const wrapId = world.contracts.Wrap;
    world.chain.transact(account, wrapId, [{ method: 'near_deposit', args: {}, deposit: amount, gas: 5n * TGAS }], (r) => {
      world.tokens.mint(r, account, amount);
      recordTrade(world, r, { dex: 'Wrap', poolId: null, trader: account, tokenIn: 'near', tokenOut: wrapId, amountIn: amount, amountOut: amount });
    });
  }

  unwrap(world: World, account: string, amount: bigint): void {
    const wrapId = world.contracts.Wrap;
    const call = { method: 'near_withdraw', args: { amount: amount.toString() }, deposit: ONE_YOCTO, gas: 30n * TGAS };
    world.chain.transact(account, wrapId, [call], (r) => {
      world.tokens.burn(r, account, amount);
      r.transfer(account, amount);
      recordTrade(world, r, { dex: 'Wrap', poolId: null, trader: account, tokenIn: wrapId, tokenOut: 'near', amountIn: amount, amountOut: amount });
    });
  }
}
