import { describe, it, expect } from 'vitest';
import { normalizeLakeLayout, normalizeStreamerMessage, BlockFormatError } from '../../near/block.ts';
import type { Action, Block, ReceiptOutcome } from '../../near/block.ts';
import { decodeBlock } from '../../near/decode.ts';
import { loadBlock, parseLikeLakeFramework, readFixture, readFixtureText, readSources, stableJson } from './helpers.ts';

function outcome(block: Block, receiptId: string): ReceiptOutcome {
  for (const shard of block.shards) {
    for (const o of shard.receiptOutcomes) if (o.receiptId === receiptId) return o;
  }
  throw new Error(`receipt ${receiptId} not in block ${block.height}`);
}

describe('every fixture block (counts from SOURCES.md)', () => {
  const rows = readSources();

  it('SOURCES.md lists all 33 fixtures', () => {
    expect(rows).toHaveLength(33);
  });

  for (const row of rows) {
    it(`${row.file}: normalizes, decodes, and matches the table`, () => {
      const block = loadBlock(row.file);
      expect(block.height).toBe(row.height);
      const outcomes = block.shards.flatMap((s) => s.receiptOutcomes);
      expect(outcomes).toHaveLength(row.outcomes);
      const txs = block.shards.reduce((n, s) => n + (s.chunk?.transactions.length ?? 0), 0);
      expect(txs).toBe(row.txs);
      // Logs are kept whole, failed receipts included.
      const logs = outcomes.flatMap((o) => o.logs);
      expect(logs.filter((l) => l.startsWith('EVENT_JSON')).length).toBe(row.eventJsonLogs);
      // The column counts mainnet Ref (AmmA) only; testnet 234187695 has a `Swapped` log of
      // ref-finance-101.testnet that it leaves out.
      const refSwapped = outcomes
        .filter((o) => o.executorId === 'v2.ref-finance.near')
        .flatMap((o) => o.logs)
        .filter((l) => l.startsWith('Swapped '));
      expect(refSwapped.length).toBe(row.refSwappedLogs);
      expect(() => decodeBlock(block)).not.toThrow();
    });
  }
});

describe('block header', () => {
  it('camelCase 100596707: exact ns timestamp from timestampNanosec, not the rounded number', () => {
    const block = loadBlock('mainnet/100596707.json');
    expect(block.hash).toBe('8Ft8Ww6WWwksX8qUT6fowBWv8Au6ENjEdgZni1XtMydQ');
    expect(block.prevHash).toBe('DidK1xzQKZt15wS3EsyGEwqtJCMHzjiRC3jQyqE9AXFZ');
    expect(block.author).toBe('epic.poolv1.near');
    // JSON has "timestamp": 1694099002392102400 (rounded) and "timestampNanosec": "...470".
    expect(block.timestampNs).toBe(1694099002392102470n);
    expect(block.timestampMs).toBe(1694099002392);
    expect(block.shards.map((s) => s.shardId)).toEqual([0, 1, 2, 3]);
  });

  it('snake_case 151768255: eight shards with post-resharding ids, in the message order', () => {
    const block = loadBlock('mainnet/151768255.json');
    expect(block.author).toBe('future_is_near.poolv1.near');
    expect(block.timestampNs).toBe(1750330952547030645n);
    // Shard ids are no longer 0..n-1 (resharding): ids, not positions, name shards.
    expect(block.shards.map((s) => s.shardId)).toEqual([0, 1, 8, 9, 6, 7, 4, 5]);
  });

  it('114081912: the missing chunk of shard 1 is null, the others are present', () => {
    const block = loadBlock('mainnet/114081912.json');
    expect(block.shards.map((s) => s.chunk === null)).toEqual([false, true, false, false]);
  });

  it('70834061: all four chunks missing, no outcomes', () => {
    const block = loadBlock('mainnet/70834061.json');
    expect(block.shards.every((s) => s.chunk === null && s.receiptOutcomes.length === 0)).toBe(true);
  });
});

describe('Lake layout: localnet 879765', () => {
  it('block.json + shard_0.json give the block and its single (failed) outcome', () => {
    const block = loadBlock('localnet/lake-layout/000000879765');
    expect(block).toMatchObject({
      height: 879765,
      hash: '95K8Je1iAVqieVU8ZuGgSdbvYs8T9rL6ER1XnRekMGbj',
      prevHash: '9Da84RTsubZPcLxzK1K6JkCnDnMn4DxaSRzJPtnYJXUM',
      author: 'test.near',
      timestampNs: 1676913656724153000n,
      timestampMs: 1676913656724,
    });
    expect(block.shards).toHaveLength(1);
    const shard = block.shards[0]!;
    expect(shard.chunk?.hash).toBe('7Ewp1AnL6o29UXLW2up9miQBdSaKxCnfRyhMGt9G4epN');
    expect(shard.chunk?.transactions).toEqual([
      {
        hash: 'EZnJpyJDnkwnadB1V8PqjVMx7oe2zLhUMtJ8v6EUh1NQ',
        signerId: 'test.near',
        receiverId: 'test.near',
        actions: [
          {
            kind: 'Delegate',
            senderId: 'test.near',
            receiverId: 'test.near',
            actions: [{ kind: 'AddKey', publicKey: 'ed25519:CnQMksXTTtn81WdDujsEMQgKUMkFvDJaAjDeDLTxVrsg' }],
          },
        ],
        receiptIds: ['AQDQ9G4QpK7x2inV3GieVEbqeoCGF9nmvrViQ2UgEXDQ'],
      },
    ]);
    expect(shard.receiptOutcomes).toHaveLength(1);
    const o = shard.receiptOutcomes[0]!;
    expect(o).toMatchObject({
      receiptId: 'AQDQ9G4QpK7x2inV3GieVEbqeoCGF9nmvrViQ2UgEXDQ',
      executorId: 'test.near',
      predecessorId: 'test.near',
      receiverId: 'test.near',
      status: { kind: 'Failure', error: { ActionError: { index: 0, kind: 'DelegateActionExpired' } } },
      logs: [],
      receiptIds: ['5rc8UEhD4hmNQ3pJJM5Xc3VHeLXpCQqkA3ep8ag4aaDA'],
      gasBurnt: 308059500000,
      tokensBurnt: 30805950000000000000n,
      // No tx_hash in this old layout: found through the block's own transaction.
      txHash: 'EZnJpyJDnkwnadB1V8PqjVMx7oe2zLhUMtJ8v6EUh1NQ',
    });
    expect(o.receipt).toMatchObject({
      kind: 'Action',
      signerId: 'test.near',
      signerPublicKey: 'ed25519:8Rn4FJeeRYcrLbcrAQNFVgvbZ2FCEQjgydbXwqBwF1ib',
      gasPrice: 100000000n,
    });
    expect(shard.stateChanges.map((c) => c.type)).toEqual(['account_update', 'access_key_update']);
    expect(decodeBlock(block)).toEqual([]);
  });

  it('shard files given out of order are put in the chunk order', () => {
    const blockJson = {
      author: 'a.near',
      header: { height: 5, hash: 'h', prev_hash: 'p', timestamp_nanosec: '1000000' },
      chunks: [{ shard_id: 10 }, { shard_id: 2 }],
    };
    const shard = (id: number) => ({ shard_id: id, chunk: null, receipt_execution_outcomes: [], state_changes: [] });
    const block = normalizeLakeLayout(blockJson, [shard(2), shard(10)]);
    expect(block.shards.map((s) => s.shardId)).toEqual([10, 2]);
  });
});

describe('receipts, actions, state changes', () => {
  it('100596707: the Delegate transaction keeps sender, receiver and its inner FunctionCall', () => {
    const block = loadBlock('mainnet/100596707.json');
    const tx = block.shards
      .flatMap((s) => s.chunk?.transactions ?? [])
      .find((t) => t.hash === 'GriLSCxJUPytczCjfjBPZj3x53mhuBtpTpswZARfK1vo');
    expect(tx).toBeDefined();
    expect(tx!.signerId).toBe('u.arkana.near');
    expect(tx!.receiverId).toBe('outlyingquest200665988.u.arkana.near');
    expect(tx!.receiptIds).toEqual(['Ea4C7UViH1QFrbrLessjeqxBYsV3deL4zkXSG3rgeMSi']);
    expect(tx!.actions).toHaveLength(1);
    const delegate = tx!.actions[0] as Extract<Action, { kind: 'Delegate' }>;
    expect(delegate.kind).toBe('Delegate');
    expect(delegate.senderId).toBe('outlyingquest200665988.u.arkana.near');
    expect(delegate.receiverId).toBe('main.arkana.near');
    expect(delegate.actions).toHaveLength(1);
    expect(delegate.actions[0]).toMatchObject({
      kind: 'FunctionCall',
      methodName: 'action_logs',
      gas: 10000000000000n,
      deposit: 0n,
    });
    expect((delegate.actions[0] as { argsBase64: string }).argsBase64.startsWith('eyJhY3Rpb25fbG9ncyI6')).toBe(true);
  });

  it('100596707: a receipt converted from a transaction of the block gets its tx hash', () => {
    const block = loadBlock('mainnet/100596707.json');
    expect(outcome(block, '5StG1mu4YmVLJt64w7DREHijvJ4LHak9YKVn3inoeb5i').txHash).toBe(
      'AWmqv6GYMKXmg59kvDx8iVWjDkERRNKJeBtVsvrgok6Z',
    );
    expect(outcome(block, 'ApWZScCgB3K2EYoemHyR9RP4fT7ne7kKGTUT57t2LDtt').txHash).toBeNull();
  });

  it('114081912: bare-string CreateAccount next to AddKey and Transfer', () => {
    const block = loadBlock('mainnet/114081912.json');
    const o = outcome(block, 'FFcSXSvLYcfG4t1CVMNQ9v5fuqhUkB9XxdT3iig3wRJo');
    expect(o.receipt.kind).toBe('Action');
    if (o.receipt.kind !== 'Action') return;
    expect(o.receipt.actions.map((a) => a.kind)).toEqual(['CreateAccount', 'AddKey', 'Transfer']);
    expect(o.receipt.actions[2]).toEqual({ kind: 'Transfer', deposit: 1000n });
    expect(o.status).toEqual({
      kind: 'Failure',
      error: { ActionError: { index: 0, kind: { AccountAlreadyExists: { accountId: 'femraph.tg' } } } },
    });
  });

  it('151768255: every outcome carries its own tx_hash', () => {
    const block = loadBlock('mainnet/151768255.json');
    const outcomes = block.shards.flatMap((s) => s.receiptOutcomes);
    expect(outcomes).toHaveLength(313);
    expect(outcomes.every((o) => typeof o.txHash === 'string')).toBe(true);
    expect(outcome(block, '4Lov9JYwf8Ucha9EdTuE2sbJuYUrooVmVjQa1W6jVCbq').txHash).toBe(
      '3iLnPYcTwSzxynH5CjM15hp1SZiphFsthYmF8EpkAA8j',
    );
    // A Delegate receipt of a relayer, with its inner FunctionCall.
    const d = outcome(block, 'DmNxnZbB3aSFsHLBcAWvpyJHLgrpFEsp4FCAnzKSAg98');
    expect(d.receipt.kind === 'Action' && d.receipt.actions[0]).toMatchObject({
      kind: 'Delegate',
      senderId: '51fcb5e21b2c050e177c98e2b64a5b28bf248577241e0ee7ca711a003519017e',
      receiverId: 'token.sweat',
      actions: [{ kind: 'FunctionCall' }],
    });
  });

  it('151768255: state changes: data_update / data_deletion fields, the rest camelCased', () => {
    const block = loadBlock('mainnet/151768255.json');
    const changes = block.shards[0]!.stateChanges;
    expect(changes).toHaveLength(53);
    expect(changes.find((c) => c.type === 'data_update')).toEqual({
      type: 'data_update',
      cause: { type: 'receipt_processing', receiptHash: 'AzuUwDwQBwA7JHy1YHcSqAoGSLhhwgLKtgHep5n73TKS', txHash: null },
      change: {
        accountId: 'aa-harvest-moon.near',
        keyBase64: 'AQ0AAABpNzcyMzUwMDIyLnRn',
        valueBase64:
          '2BZl8rRsShgABAAAAAEABQACAAMAAwACAAQAAQAEAAEAAQAAAAAAAAEAAAAbAAAAYWEtaGFydmVzdC1tb29uLXJlbGljcy5uZWFyBgAAADE1OjkwNhkAAABYADIqOVRJGFgAWyNJeksY',
      },
    });
    expect(changes.find((c) => c.type === 'account_update')).toEqual({
      type: 'account_update',
      cause: { type: 'transaction_processing', receiptHash: null, txHash: '2Q9ndUrofAZAnCFPGmS6hj6XdByP7q5Yg6WPD2CESngA' },
      change: {
        accountId: '0-relay.hot.tg',
        amount: '491442455860012580873071356',
        locked: '0',
        codeHash: '11111111111111111111111111111111',
        storageUsage: 64470,
        storagePaidAt: 0,
      },
    });
    const deletion = block.shards.flatMap((s) => s.stateChanges).find((c) => c.type === 'data_deletion');
    expect(deletion?.change).toEqual({ accountId: 'earn.kaiching', keyBase64: 'ABgAAABULTMyNjllLTBtczBtLTIwMjUtMDYtMTk=' });
  });
});

describe('casing: near-lake-framework camelCase gives the same block', () => {
  const snakeFiles = readSources()
    .filter((r) => r.casing === 'snake_case' && r.file.endsWith('.json'))
    .map((r) => r.file);

  it('the converter renames nested keys but keeps tags and values', () => {
    const converted = parseLikeLakeFramework(
      '{"receipt":{"Action":{"signer_id":"a","actions":[{"FunctionCall":{"method_name":"m"}}]}},"type":"data_update"}',
    );
    expect(converted).toEqual({
      receipt: { Action: { signerId: 'a', actions: [{ FunctionCall: { methodName: 'm' } }] } },
      type: 'data_update',
    });
  });

  for (const file of snakeFiles) {
    it(`${file}: snake_case and its camelCase conversion normalize and decode identically`, () => {
      const text = readFixtureText(file);
      const fromSnake = normalizeStreamerMessage(JSON.parse(text));
      const fromCamel = normalizeStreamerMessage(parseLikeLakeFramework(text));
      expect(stableJson(fromCamel)).toBe(stableJson(fromSnake));
      expect(stableJson(decodeBlock(fromCamel))).toBe(stableJson(decodeBlock(fromSnake)));
    });
  }

  it('a message mixing both casings still normalizes (detection is per key)', () => {
    const snake = readFixture('mainnet/82654651.json') as { block: unknown; shards: unknown[] };
    const camel = parseLikeLakeFramework(readFixtureText('mainnet/82654651.json')) as typeof snake;
    const mixed = { block: camel.block, shards: [snake.shards[0], camel.shards[1], snake.shards[2], camel.shards[3]] };
    expect(stableJson(normalizeStreamerMessage(mixed))).toBe(stableJson(normalizeStreamerMessage(snake)));
  });
});

describe('two producers, one block: testnet 190534818', () => {
  it('190534818.json and 190534818-alt.json give the same block and events', () => {
    const a = loadBlock('testnet/190534818.json');
    const b = loadBlock('testnet/190534818-alt.json');
    expect(b).toEqual(a);
    const events = decodeBlock(a);
    expect(decodeBlock(b)).toEqual(events);
    // 5 outcomes, 4 of them gas refunds from `system` (counted with jq).
    expect(events.map((e) => e.kind)).toEqual(['near_transfer', 'near_transfer', 'near_transfer', 'near_transfer']);
  });
});

describe('shapes the fixtures lack (synthetic)', () => {
  const header = { height: 7, hash: 'H', prev_hash: 'P', timestamp: 1, timestamp_nanosec: '1700000000123456789' };

  function message(outcomes: unknown[], extra: Record<string, unknown> = {}) {
    return {
      block: { author: 'node.near', header },
      shards: [{ shard_id: 0, chunk: null, receipt_execution_outcomes: outcomes, state_changes: [], ...extra }],
    };
  }

  function rawOutcome(receipt: unknown, status: unknown = { SuccessValue: '' }) {
    return {
      execution_outcome: {
        id: 'R1',
        outcome: { executor_id: 'b.near', logs: [], receipt_ids: [], status, gas_burnt: 1, tokens_burnt: '0' },
      },
      receipt: { predecessor_id: 'a.near', receiver_id: 'b.near', receipt_id: 'R1', receipt, priority: 0 },
    };
  }

  it('a Data receipt', () => {
    const block = normalizeStreamerMessage(message([rawOutcome({ Data: { data_id: 'D1', data: null } })]));
    expect(block.shards[0]!.receiptOutcomes[0]!.receipt).toEqual({ kind: 'Data', dataId: 'D1' });
    expect(block.timestampMs).toBe(1700000000123);
  });

  it('string gas, NonDelegateAction wrappers, unknown action and receipt kinds, Unknown status', () => {
    const actions = [
      { FunctionCall: { method_name: 'm', args: 'e30=', gas: '300000000000000', deposit: '1' } },
      {
        Delegate: {
          delegate_action: {
            sender_id: 's.near',
            receiver_id: 'r.near',
            actions: [{ NonDelegateAction: { Transfer: { deposit: '5' } } }, 'CreateAccount'],
          },
          signature: 'x',
        },
      },
      { DeployGlobalContract: { code: '' } },
      { DeleteAccount: { beneficiary_id: 'x.near' } },
      { Stake: { stake: '10', public_key: 'ed25519:k' } },
    ];
    const block = normalizeStreamerMessage(
      message([
        rawOutcome({ Action: { signer_id: 's.near', actions } }, 'Unknown'),
        rawOutcome({ GlobalContractDistribution: {} }),
      ]),
    );
    const [first, second] = block.shards[0]!.receiptOutcomes;
    expect(first!.status).toEqual({ kind: 'Unknown' });
    expect(first!.receipt).toEqual({
      kind: 'Action',
      signerId: 's.near',
      signerPublicKey: null,
      gasPrice: null,
      actions: [
        { kind: 'FunctionCall', methodName: 'm', argsBase64: 'e30=', gas: 300000000000000n, deposit: 1n },
        {
          kind: 'Delegate',
          senderId: 's.near',
          receiverId: 'r.near',
          actions: [{ kind: 'Transfer', deposit: 5n }, { kind: 'CreateAccount' }],
        },
        { kind: 'Other', name: 'DeployGlobalContract' },
        { kind: 'DeleteAccount', beneficiaryId: 'x.near' },
        { kind: 'Stake', stake: 10n, publicKey: 'ed25519:k' },
      ],
    });
    expect(second!.receipt).toEqual({ kind: 'Other', name: 'GlobalContractDistribution' });
  });

  it('an empty shard (no outcome or state change lists at all)', () => {
    const block = normalizeStreamerMessage({ block: { author: 'n', header }, shards: [{ shard_id: 3, chunk: null }] });
    expect(block.shards).toEqual([{ shardId: 3, chunk: null, receiptOutcomes: [], stateChanges: [] }]);
  });

  it('structural garbage is refused with a BlockFormatError naming the field', () => {
    expect(() => normalizeStreamerMessage({ block: { author: 'n', header }, shards: 'x' })).toThrow(BlockFormatError);
    expect(() =>
      normalizeStreamerMessage(message([rawOutcome({ Action: { signer_id: 's', actions: [{ Transfer: { deposit: '-1' } }] } })])),
    ).toThrow(/Transfer.deposit/);
    expect(() =>
      normalizeStreamerMessage(message([rawOutcome({ Action: { signer_id: 's', actions: [{ Transfer: { deposit: '' } }] } })])),
    ).toThrow(/Transfer.deposit/);
  });
});
