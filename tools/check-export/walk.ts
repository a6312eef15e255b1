// walk pages through every listing of a chain data query API deployment
// with the TypeScript client made of openapi-typescript's types (api.d.ts,
// from `harness schemas --openapi`) and openapi-fetch, and prints the rows
// it read, by listing, as JSON. make check-export compiles it with
// tsc --strict and runs it against the mock.
//
//   node walk.js [BASE_URL] [PAGE_SIZE]
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const baseUrl = process.argv[2] ?? "http://127.0.0.1:8080";
const pageSize = Number(process.argv[3] ?? "50");
const maxPages = 1000;
const client = createClient<paths>({ baseUrl });

// A page as the walk needs it: its rows, and the cursor of the next page
// when there is one.
interface Page {
  rows: number;
  next?: string;
}

// pages fetches pages until the last and returns the rows read.
async function pages(fetchPage: (cursor?: string) => Promise<Page>): Promise<number> {
  let rows = 0;
  let cursor: string | undefined;
  for (let n = 1; n <= maxPages; n++) {
    const page = await fetchPage(cursor);
    rows += page.rows;
    if (page.next === undefined) return rows;
    cursor = page.next;
  }
  throw new Error(`more than ${maxPages} pages`);
}

// ok returns the body of a 200 answer and throws on any other.
function ok<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(`${r.response.url}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

interface Connection {
  edges: unknown[];
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

function page(c: Connection): Page {
  return { rows: c.edges.length, next: c.pageInfo.hasNextPage ? c.pageInfo.endCursor : undefined };
}

// games walks window by window: at most 30 epochs per request (spec
// section 8), down from the newest game's epoch to 0.
async function games(): Promise<number> {
  const first = ok(await client.GET("/api/v2/games", { params: { query: { "pagination.first": 1 } } }));
  const top = first.games.edges[0]?.node.epoch;
  if (top === undefined) return 0;
  let rows = 0;
  for (let to = Number(top); to >= 0; to -= 30) {
    const epochFrom = String(Math.max(to - 29, 0));
    const epochTo = String(to);
    rows += await pages(async (after) => {
      const body = ok(await client.GET("/api/v2/games", {
        params: { query: { epochFrom, epochTo, "pagination.first": pageSize, "pagination.after": after } },
      }));
      return page(body.games);
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const counts: Record<string, number> = {};
  counts.games = await games();
  counts.snapshots = await pages(async (after) =>
    page(ok(await client.GET("/api/v2/snapshots", {
      params: { query: { "pagination.first": pageSize, "pagination.after": after } },
    })).coreSnapshots));
  counts.keyrotations = await pages(async (after) =>
    page(ok(await client.GET("/api/v2/core/keys/ethereum/rotations", {
      params: { query: { "pagination.first": pageSize, "pagination.after": after } },
    })).keyRotations));
  counts.networkparameters = await pages(async (after) =>
    page(ok(await client.GET("/api/v2/network/parameters", {
      params: { query: { "pagination.first": pageSize, "pagination.after": after } },
    })).networkParameters));
  // Transactions: the newest page with first, then older pages with last
  // and before (the oldest cursor so far), until a page comes back short.
  counts.transactions = await pages(async (before) => {
    const query = before === undefined ? { first: pageSize } : { last: pageSize, before };
    const txs = ok(await client.GET("/transactions", { params: { query } })).transactions;
    const oldest = txs[txs.length - 1];
    return { rows: txs.length, next: txs.length < pageSize || oldest === undefined ? undefined : oldest.cursor };
  });
  console.log(JSON.stringify(counts));
}

await main();
