// The watch section of bench:events: a dense backfill of a subscription watching 1,000 contracts and two events
// with an indexed filter (`to` one of three recipients), next to a single-event, single-contract subscription's
// dense backfill of as many matching events in the same block layout, in the same run. Both histories hold as many
// logs that do not match (other recipients, another event): the node must leave them out. Prints stored events/s
// of each and their ratio (target ≥ 0.8), and the logs the node returned ÷ the logs recorded (target ≤ 1.1: the
// filter is in the eth_getLogs query, not applied after it).

import { startAnvil } from '@mountain/testkit/anvil.ts';
import type { Figure } from '@mountain/testkit/benchResults.ts';
import { deployFleet, FLEET_EVENTS, type Shot } from '@mountain/testkit/eventFleet.ts';
import { devAccount, readClient } from '@mountain/testkit/lab/devAccounts.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import type { Address } from 'viem';
import { createChains } from '#api/chain/chains.ts';
import type { Db } from '#api/db/db.ts';
import { defaultDeliverySettings } from '#api/delivery/settings.ts';
import { scanQueue } from '#api/eventNotifier/scanning/jobs.ts';
import { scanSubscription } from '#api/eventNotifier/scanning/scanner.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { createSubscription } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { checkWatch } from '#api/eventNotifier/watch.ts';
import type { Stop } from './benchDatabase.ts';
import { measuredCpu, perUnitByProcess } from './machineCpu.ts';

const CONTRACTS = Number(process.env.BENCH_WATCH_CONTRACTS ?? 1_000);
const MATCHING = Number(process.env.BENCH_WATCH_EVENTS ?? 20_000);
/** Shots per transaction (one block each): half match, half do not. */
const PER_BLOCK = 500;
const BLOCK_RANGE = 8;
const TO = [devAccount(6).address, devAccount(7).address, devAccount(8).address];
const OTHER = devAccount(9).address;

/** The blocks' shots: `matching(i)` for the even ones, `noise(i)` for the odd ones. */
function blockShots(block: number, matching: (i: number) => Shot, noise: (i: number) => Shot): Shot[] {
  return Array.from({ length: PER_BLOCK }, (_, k) => {
    const i = block * (PER_BLOCK / 2) + Math.floor(k / 2);
    return k % 2 === 0 ? matching(i) : noise(i);
  });
}

export async function watchSection(db: Db, masterKey: Buffer, projectId: number, stops: Stop[]): Promise<Figure[]> {
  const anvil = await startAnvil({ port: await freePort(), args: ['--gas-limit', '100000000'] });
  stops.push(() => anvil.stop());
  const client = readClient(anvil.url, { cacheTime: 0 });
  let t = Date.now();
  const fleet = await deployFleet(anvil.url, CONTRACTS + 1);
  const blocks = Math.ceil(MATCHING / (PER_BLOCK / 2));
  // The watch's history first: Transfers and Refunds of contracts 1..CONTRACTS to the recipients; the same to
  // another address, and Approvals, that do not match.
  const watchFrom = Number(await client.getBlockNumber()) + 1;
  for (let b = 0; b < blocks; b++) {
    await fleet.fire(
      blockShots(
        b,
        (i) => ({
          member: 1 + (i % CONTRACTS),
          kind: i % 2 === 0 ? 0 : 2,
          to: TO[i % TO.length] as Address,
          value: BigInt(i),
        }),
        (i) => ({ member: 1 + ((i * 7) % CONTRACTS), kind: i % 3 === 0 ? 3 : 0, to: OTHER, value: BigInt(i) }),
      ),
    );
  }
  // Then the single subscription's: Transfers of contract 0 to the recipients, and its Approvals. The watch's scan
  // reads these blocks too (nothing of them matches it), the single one does not read the watch's.
  const singleFrom = Number(await client.getBlockNumber()) + 1;
  for (let b = 0; b < blocks; b++) {
    await fleet.fire(
      blockShots(
        b,
        (i) => ({ member: 0, kind: 0, to: TO[i % TO.length] as Address, value: BigInt(i) }),
        (i) => ({ member: 0, kind: 3, to: TO[i % TO.length] as Address, value: BigInt(i) }),
      ),
    );
  }
  const head = Number(await client.getBlockNumber());
  console.log(
    `\nwatch: ${CONTRACTS} contracts, ${blocks * 2} blocks of ${PER_BLOCK} logs (half matching) mined in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );

  const settings = { ...defaultEventNotifierSettings('development'), maxBlockRange: BLOCK_RANGE };
  const chains = createChains({ 1337: anvil.url });
  const backfill = async (name: string, watch: ReturnType<typeof checkWatch>, from: number, to: number) => {
    const created = await createSubscription(db, masterKey, settings, projectId, {
      subscriptionName: name,
      networkId: 1337,
      watch,
      initialBlockNumber: from,
      scanInterval: 3_600,
    });
    t = Date.now();
    const measured = await measuredCpu(() =>
      scanSubscription(
        {
          db,
          chains,
          settings: { ...settings, webhookTimeoutMs: defaultDeliverySettings().webhookTimeoutMs },
          queue: scanQueue,
        },
        created.id,
      ),
    );
    const outcome = measured.result;
    const ms = Date.now() - t;
    if (outcome.kind !== 'scanned' || outcome.toBlock < to || outcome.stored !== MATCHING) {
      throw new Error(`${name}: ${JSON.stringify(outcome)}, expected ${MATCHING} stored up to block ${to}`);
    }
    return {
      perSecond: MATCHING / (ms / 1000),
      returned: outcome.returned,
      cpu: perUnitByProcess(measured.byProcess, MATCHING / 1000),
    };
  };
  const single = checkWatch({ address: fleet.members[0] as Address, formattedAbiEvent: FLEET_EVENTS[0] });
  const watched = checkWatch({
    address: fleet.members[1] as Address,
    addresses: fleet.members.slice(2),
    formattedAbiEvent: FLEET_EVENTS[0],
    formattedAbiEvents: [FLEET_EVENTS[2]],
    filters: { to: TO },
  });
  // Alternately, best of two each: the machine is shared.
  let singleBest = { perSecond: 0, cpu: '' };
  let watchBest = { perSecond: 0, cpu: '', returned: 0 };
  for (let run = 0; run < 2; run++) {
    const one = await backfill(`Single ${run}`, single, singleFrom, head);
    if (one.perSecond > singleBest.perSecond) singleBest = one;
    const multi = await backfill(`Watch ${run}`, watched, watchFrom, head);
    if (multi.perSecond > watchBest.perSecond) watchBest = multi;
  }
  const returned = watchBest.returned;
  const ratio = watchBest.perSecond / singleBest.perSecond;
  const pushedDown = returned / MATCHING;
  console.log(
    `  single event, single contract, stored: ${singleBest.perSecond.toFixed(0)} events/s ` +
      `(CPU µs per event: ${singleBest.cpu})`,
  );
  console.log(
    `  2 events × ${CONTRACTS} contracts, filter on to, stored: ${watchBest.perSecond.toFixed(0)} events/s ` +
      `(CPU µs per event: ${watchBest.cpu})`,
  );
  console.log(`  ratio: ${ratio.toFixed(2)} (target ≥ 0.8)`);
  console.log(`  logs the node returned ÷ logs recorded: ${pushedDown.toFixed(2)} (target ≤ 1.1)`);
  return [
    { name: 'watch: single event and contract, stored', value: Math.round(singleBest.perSecond), unit: 'events/s' },
    {
      name: 'watch: 2 events × 1,000 contracts with a filter, stored',
      value: Math.round(watchBest.perSecond),
      unit: 'events/s',
    },
    {
      name: 'watch: ratio to single',
      value: Number(ratio.toFixed(2)),
      unit: '',
      target: { op: '>=', value: 0.8 },
    },
    {
      name: 'watch: logs returned ÷ recorded',
      value: Number(pushedDown.toFixed(2)),
      unit: '',
      target: { op: '<=', value: 1.1 },
    },
  ];
}
