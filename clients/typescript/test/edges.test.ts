// Why a client team should test against the edge world (harness serve
// --world edges): a client test that reads a uint64 as a JavaScript number
// passes against the default world, whose blocks are far below 2^53, and
// fails against the edge world, whose blocks cross 2^53. Run by node --test
// (TestTypeScriptClient in cmd/harness) against the binary HARNESS_BIN names;
// docs/testing-with-the-mock.md tells the story.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { HarnessMock } from "../src/index.js";

/** A transaction as a naive client declares it: the block height a number. */
interface NaiveTransaction {
  block: number;
  index: number;
}

/** A naive client: JSON.parse, then the block height as a number, as its type says. */
async function naiveTransactions(base: string): Promise<NaiveTransaction[]> {
  const body = (await (await fetch(`${base}/transactions?first=50`)).json()) as { transactions: { block: string; index: number }[] };
  return body.transactions.map((tx) => ({ block: Number(tx.block), index: tx.index }));
}

/** A careful client: a uint64 stays the string it came as (or a BigInt). */
async function carefulTransactions(base: string): Promise<{ block: bigint; index: number }[]> {
  const body = (await (await fetch(`${base}/transactions?first=50`)).json()) as { transactions: { block: string; index: number }[] };
  return body.transactions.map((tx) => ({ block: BigInt(tx.block), index: tx.index }));
}

/** The blocks the mock served, read from the bytes on the wire, not through a JavaScript number. */
async function servedBlocks(base: string): Promise<string[]> {
  const raw = await (await fetch(`${base}/transactions?first=50`)).text();
  return [...raw.matchAll(/"block":"(\d+)"/g)].map((m) => m[1]!);
}

/** The client team's test, as it would write it: the blocks the client read are the blocks served. */
async function clientTest(read: (base: string) => Promise<{ block: number | bigint }[]>, base: string): Promise<void> {
  const got = (await read(base)).map((tx) => String(tx.block));
  const want = await servedBlocks(base);
  assert.ok(want.length > 0, "the mock served no transaction");
  assert.deepEqual(got, want);
}

describe("a client that reads a uint64 as a JavaScript number", () => {
  let plain: HarnessMock;
  let edges: HarnessMock;
  before(async () => {
    [plain, edges] = await Promise.all([
      HarnessMock.start({ args: ["--scale", "0.05"] }),
      HarnessMock.start({ args: ["--world", "edges"] }),
    ]);
  });
  after(async () => {
    await Promise.all([plain.stop(), edges.stop()]);
  });

  it("passes its test against the default world", async () => {
    await clientTest(naiveTransactions, plain.url);
  });

  it("fails the same test against the edge world: the blocks above 2^53 lose their last digits", async () => {
    await assert.rejects(clientTest(naiveTransactions, edges.url), (e: unknown) => {
      assert.ok(e instanceof assert.AssertionError, `want the client test's assertion to fail, got ${String(e)}`);
      // An odd block above 2^53 comes back as its even neighbour.
      assert.match(e.message, /9007199254\d{6}/);
      return true;
    });
  });

  it("is caught by the coverage of its test: it was served uint64s above 2^53", async () => {
    await edges.reset();
    await naiveTransactions(edges.url);
    await edges.assertCovered("edge:above-2^53");
  });

  it("where a careful client passes in both worlds", async () => {
    await clientTest(carefulTransactions, plain.url);
    await clientTest(carefulTransactions, edges.url);
  });
});
