// Staking NEAR: the shared `deposit_and_stake {}` call (../stake/instructions.ts). Pure.
export { depositAndStakeCalls, STAKE_GAS } from '../stake/instructions.ts';
