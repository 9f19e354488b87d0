/**
 * The client process of `npm run bench -- alerts` (bench-alert.ts forks it): it times the repeat
 * trigger on the service and on its floor from outside the server's process, so neither side's
 * figure carries the client's CPU. Requests are built once and sent over kept-alive sockets (the
 * load client, load-client.ts), alternating request by request between the two sides, the side that
 * goes first alternating too. Every answer must be a 202; anything else fails the run.
 */
import { LoadClient } from './load-client.js';

export interface AlertClientInput {
  service: { url: string; bodies: string[] };
  floor: { url: string; bodies: string[] };
  /** Pairs sent before anything is timed. */
  warmPairs: number;
  rounds: number;
  pairsPerRound: number;
}

export interface AlertClientRound {
  service: { p50: number; p99: number };
  floor: { p50: number; p99: number };
}

export type AlertClientOutput = { ok: true; rounds: AlertClientRound[] } | { ok: false; error: string };

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

async function run(input: AlertClientInput): Promise<AlertClientRound[]> {
  const side = (spec: AlertClientInput['service'], name: string) => {
    const client = new LoadClient(spec.url);
    const sends = spec.bodies.map((body) => client.prepare('POST', '/v2/enqueue', { 'content-type': 'application/json' }, body));
    let next = 0;
    return {
      client,
      async timed(): Promise<number> {
        const send = sends[next++ % sends.length]!;
        const started = performance.now();
        const answer = await send();
        const took = performance.now() - started;
        if (answer.status !== 202) throw new Error(`${name}: ${answer.status} ${answer.body}`);
        return took;
      },
    };
  };
  const service = side(input.service, 'service');
  const floor = side(input.floor, 'floor');
  const pair = async (index: number, into?: { service: number[]; floor: number[] }) => {
    const first = index % 2 === 0 ? 'service' : 'floor';
    const second = first === 'service' ? 'floor' : 'service';
    const sides = { service, floor };
    const a = await sides[first].timed();
    const b = await sides[second].timed();
    into?.[first].push(a);
    into?.[second].push(b);
  };
  try {
    for (let index = 0; index < input.warmPairs; index++) await pair(index);
    const rounds: AlertClientRound[] = [];
    for (let round = 0; round < input.rounds; round++) {
      const timings = { service: [] as number[], floor: [] as number[] };
      for (let index = 0; index < input.pairsPerRound; index++) await pair(index, timings);
      rounds.push({
        service: { p50: percentile(timings.service, 0.5), p99: percentile(timings.service, 0.99) },
        floor: { p50: percentile(timings.floor, 0.5), p99: percentile(timings.floor, 0.99) },
      });
    }
    return rounds;
  } finally {
    service.client.close();
    floor.client.close();
  }
}

process.once('message', (input: AlertClientInput) => {
  run(input).then(
    (rounds) => process.send!({ ok: true, rounds } satisfies AlertClientOutput, () => process.exit(0)),
    (error: unknown) => process.send!({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies AlertClientOutput, () => process.exit(1)),
  );
});
