// The package against the harness binary HARNESS_BIN names (the Go test
// TestTypeScriptClient builds it and runs these with node --test).

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { HarnessError, HarnessMock, verifyParams } from "../src/index.js";

const small = ["--scale", "0.05"];

/** GETs a path of the mock and returns the status and parsed body. */
async function get(mock: HarnessMock, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(mock.url + path);
  return { status: res.status, body: await res.json() };
}

describe("a mock started and stopped", () => {
  it("serves on a free port of 127.0.0.1 and stops", async () => {
    const a = await HarnessMock.start({ args: small });
    const b = await HarnessMock.start({ args: small });
    try {
      assert.match(a.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(a.url, b.url);
      const st = await a.status();
      assert.equal(st.scale, 0.05);
      assert.ok(st.counts.transactions > 0);
    } finally {
      await a.stop();
      await b.stop();
    }
    await assert.rejects(fetch(a.url + "/harness/status"), "the port is closed once stopped");
    await a.stop(); // twice is harmless
  });

  it("says why it did not start", async () => {
    await assert.rejects(HarnessMock.start({ args: ["--scale", "0"] }), /exited \(code 2\) before serving\n.*--scale must be between 0.01/s);
    await assert.rejects(HarnessMock.start({ binary: "/nonexistent/harness" }), /ENOENT/);
  });
});

describe("the control API", () => {
  let mock: HarnessMock;
  before(async () => {
    mock = await HarnessMock.start({ args: small });
  });
  after(async () => {
    await mock.stop();
  });

  it("verifies a clean walk and counts requests", async () => {
    await mock.reset();
    let page = await get(mock, "/api/v2/network/parameters?pagination.first=100");
    let pages = 1;
    while (page.body.networkParameters.pageInfo.hasNextPage) {
      const after = encodeURIComponent(page.body.networkParameters.pageInfo.endCursor);
      page = await get(mock, `/api/v2/network/parameters?pagination.first=100&pagination.after=${after}`);
      pages++;
    }
    assert.deepEqual(await mock.verify(), { pass: true, messages: ["1 walk complete and clean, " + pages + " requests without a warning"] });
    await mock.assertVerified({ listing: "networkparameters" });
    assert.equal(await mock.count({ listing: "networkparameters", match: { "pagination.first": "100" } }), pages);
    assert.equal(await mock.count({ listing: "networkparameters", match: { "pagination.after": true } }), pages - 1);
    const exact = await mock.verify({ listing: "networkparameters", count: pages + 1 });
    assert.equal(exact.pass, false);
    assert.equal(exact.count, pages);
    const walks = await mock.walks("networkparameters");
    assert.equal(walks.length, 1);
    assert.equal(walks[0]!.reachedEnd, true);
    const reqs = await mock.requests({ listing: "networkparameters" });
    assert.equal(reqs.length, pages);
    assert.ok(reqs[0]!.id > reqs[1]!.id, "newest first");
  });

  it("fails a client that misspells a parameter or stops early, saying why", async () => {
    await mock.reset();
    await get(mock, "/transactions?first=2&cmdTypes[]=Submit+Order");
    await get(mock, "/transactions?first=2&cmdTypes[]=Submit+Order");
    const v = await mock.verify();
    assert.equal(v.pass, false);
    assert.equal(v.messages.filter((m) => m.includes("did not reach the end")).length, 2);
    assert.equal(v.messages.filter((m) => m.startsWith('2 requests drew the warning "\\"cmdTypes[]\\" is not read')).length, 1);
    await assert.rejects(mock.assertVerified({ partial: true }), /verify failed:\n {2}2 requests drew the warning/);
    await mock.clearRequests();
    assert.deepEqual(await mock.requests(), []);
  });

  it("adds rows for a test, in their place, and a reset removes them", async () => {
    await mock.reset();
    const before = await mock.status();
    const height = "9007199254740993"; // 2^53 + 1: a JavaScript number cannot hold it
    const snap = {
      blockHash: "ab".repeat(32),
      blockHeight: height,
      coreVersion: "v0.0.1-edge",
      protocolUpgradeBlock: true,
    };
    // The newest page asked three times: the third answer comes from the
    // page cache, and the row added below still shows at once.
    for (let i = 0; i < 3; i++) await get(mock, "/api/v2/snapshots?pagination.first=1");
    const cached = await mock.status();
    assert.ok(cached.pageCache.hits > before.pageCache.hits, "a query asked again is served from the page cache");
    assert.ok(cached.pageCache.answers > 0 && cached.pageCache.bytes > 0 && cached.pageCache.limitBytes > 0);
    const st = await mock.addRows("snapshots", [snap]);
    assert.equal(st.addedRows.snapshots, 1);
    assert.equal(st.counts.snapshots, before.counts.snapshots + 1);
    const newest = await get(mock, "/api/v2/snapshots?pagination.first=1");
    assert.deepEqual(newest.body.coreSnapshots.edges[0].node, snap);

    const refused = await mock.addRows("snapshots", [snap]).catch((e: unknown) => e);
    assert.ok(refused instanceof HarnessError);
    assert.equal(refused.status, 400);
    assert.match(refused.message, /is the world's|was added before/);
    const bad = await mock.addRows("snapshots", [{ ...snap, blockHeight: "high" }, { ...snap, extra: 1 }]).catch((e: unknown) => e);
    assert.ok(bad instanceof HarnessError && typeof bad.body !== "string");
    assert.deepEqual(
      bad.body.details.map((d) => d.inner?.split(":")[0]),
      ["/rows/0/blockHeight", "/rows/1/extra"],
    );
    await mock.addRows("snapshots", [{ ...snap, coreVersion: "v2.0.0" }], { replace: true });
    assert.equal((await get(mock, "/api/v2/snapshots?pagination.first=1")).body.coreSnapshots.edges[0].node.coreVersion, "v2.0.0");

    const reset = await mock.reset();
    assert.equal(reset.addedRows.snapshots, 0);
    assert.equal(reset.counts.snapshots, before.counts.snapshots);
  });

  it("advances the chain and sets faults", async () => {
    await mock.reset();
    const st = await mock.advance(3);
    assert.equal(st.chain?.blocksAdded, 3);
    await mock.setFaults([{ listing: "games", fault: "status=503; retry-after=1" }]);
    assert.equal((await get(mock, "/api/v2/games")).status, 503);
    assert.equal(await mock.count({ listing: "games", status: 503 }), 1);
    await mock.setFaults();
    assert.equal((await get(mock, "/api/v2/games?pagination.first=1")).status, 200);
  });

  it("says what the client was served, and asserts coverage", async () => {
    await mock.reset();
    await get(mock, "/api/v2/snapshots?pagination.last=2");
    await get(mock, "/transactions?first=1&last=1");
    const c = await mock.coverage("page:backward,refusal:first-and-last", "page:empty");
    assert.equal(c.requests, 2);
    assert.equal(c.pass, false);
    assert.deepEqual(c.missing, ["page:empty"]);
    const page = c.kinds.find((k) => k.kind === "page")!;
    assert.deepEqual(page.served.map((i) => i.item), ["page:first", "page:backward"]);
    assert.ok(page.never.includes("page:exact-fit"));
    await mock.assertCovered("page:backward", "refusal:first-and-last", "listing:snapshots");
    await assert.rejects(mock.assertCovered("page:*"), /required and never served: page:middle, page:last, page:empty, page:exact-fit$/);
    await assert.rejects(mock.assertCovered("page:frist"), (e: unknown) => e instanceof HarnessError && e.status === 400 && /did you mean "page:first"\?/.test(e.message));
    assert.match(await mock.coverageText(), /^coverage of 2 API requests since the journal was last emptied\n.*\npage: 2 of 6 served\n  served: first ×1, backward ×1\n/s);
    const [refused] = await mock.requests({ listing: "transactions" });
    assert.equal(refused!.refusal, "first-and-last");
  });

  it("rejects a bad verify with the error body", async () => {
    const e = await mock.verify({ listing: "game" as never, count: 1 }).catch((err: unknown) => err);
    assert.ok(e instanceof HarnessError);
    assert.equal(e.status, 400);
    assert.match(e.message, /listing "game": want one of .*did you mean "games"\?/);
  });
});

describe("verifyParams", () => {
  it("writes each option as GET /harness/verify reads it", () => {
    const p = verifyParams({
      listing: "transactions",
      match: { cmdTypes: ["Submit Order", "Cancel Order"], first: "3", after: true },
      status: 200,
      atLeast: 1,
      atMost: 4,
      partial: true,
    });
    assert.equal(
      p.toString(),
      "listing=transactions&match=cmdTypes%3DSubmit+Order&match=cmdTypes%3DCancel+Order&match=first%3D3&match=after&status=200&atLeast=1&atMost=4&partial=true",
    );
    assert.equal(verifyParams({ count: 0 }).toString(), "count=0");
    assert.equal(verifyParams({}).toString(), "");
  });
});
