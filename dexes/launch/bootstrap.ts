// Launch's curves at one block (README.md "Bootstrap"). No public view lists aidols.near's curves, so they are read
// from its storage: every record under the prefix 0x00 (`view_state`), each key and value decoded exactly as the
// decoder decodes their writes, so each state equals the one the indexer holds. A node that will not serve the
// contract's state (over its view_state limit) gives no curve: each appears at its next write. Pure but for `at`.
import { BorshError } from '../../near/borsh.ts';
import { PoolsImportError, type BootstrapEvent, type BootstrapState, type ChainAt, type DexBootstrap } from '../dex.ts';
import { curveOfKey, decodeCurveRecord } from './decode.ts';
import { LAUNCH_DEX_ID, type LaunchPoolState } from './events.ts';

/** The first byte of every curve record's key (`0x00 ‖ borsh(token_id)`), base64. */
const CURVE_KEY_PREFIX = Buffer.of(0x00).toString('base64');
/** The skipped kind when the node refuses the state. */
const STATE_NOT_SERVED = 'contract state';

export const launchBootstrap: DexBootstrap = {
  async read(at: ChainAt): Promise<BootstrapState> {
    const contractId = at.contracts.Launch;
    const records = await at.storage(contractId, CURVE_KEY_PREFIX);
    if (records === null) return { events: [], skipped: { [STATE_NOT_SERVED]: 1 } };
    const events: BootstrapEvent[] = [];
    for (const { keyBase64, valueBase64 } of records) {
      // Other keys under 0x00 (none known) are not curve records, as in the decoder.
      const token = curveOfKey(keyBase64);
      if (token === null) continue;
      let state: LaunchPoolState;
      try {
        state = decodeCurveRecord(token, at.contracts.Wrap, valueBase64);
      } catch (err) {
        if (!(err instanceof BorshError)) throw err;
        throw new PoolsImportError(`${contractId} view_state ${CURVE_KEY_PREFIX} at block ${at.height}: the curve record of ${token} (${valueBase64}): ${err.message}`);
      }
      events.push({ kind: 'pool_state', dex: LAUNCH_DEX_ID, contractId, poolId: token, state, source: 'storage' });
    }
    return { events };
  },
  skipReasons: {
    [STATE_NOT_SERVED]: "the node will not serve aidols.near's state (over its view_state limit) and no view lists the curves: each curve appears at its next trade",
  },
};
