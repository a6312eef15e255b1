// The harness mock for a JavaScript or TypeScript client's tests: starts
// `harness serve` on a free port of 127.0.0.1, stops it, and reads and
// drives it through its control API (docs/serve.md): the status, the chain,
// rows added for a test, the request journal, the verdict of
// GET /harness/verify and the coverage of GET /harness/coverage. No
// dependency: Node's child_process and fetch.

import { spawn, type ChildProcess } from "node:child_process";

/** The listings' names, as the control API takes them. */
export type Listing = "games" | "snapshots" | "keyrotations" | "networkparameters" | "transactions";

/** How to start the mock. */
export interface StartOptions {
  /** The harness binary: else the HARNESS_BIN environment variable, else `harness` on the PATH. */
  binary?: string;
  /** Flags of `harness serve` besides --addr, such as ["--seed", "7", "--scale", "0.1"]. */
  args?: string[];
  /** How long to wait for the mock to serve, in milliseconds (default 60000: a big world takes a while). */
  startTimeoutMs?: number;
}

/** What GET /harness/status answers. */
export interface Status {
  seed: number;
  scale: number;
  counts: Record<Listing, number>;
  addedRows: Record<Listing, number>;
  /** A uint64: a string would be safer, but the control API writes it as a number below 2^53. */
  latestBlock: number;
  latestBlockTime: string;
  firstEpoch: number;
  latestEpoch: number;
  chain: { blocksAdded: number; maxBlocks: number; clock: string; blockInterval?: string } | null;
  faults: { rules: unknown[]; injected: Record<string, number> };
  pageCache: { limitBytes: number; bytes: number; answers: number; hits: number };
}

/** A request the mock received, as GET /harness/requests answers it. */
export interface JournalRequest {
  id: number;
  time: string;
  durationMs: number;
  method: string;
  path: string;
  query: string;
  listing: string;
  status: number;
  rows: number;
  fault?: string;
  retryAfter?: number;
  warnings: string[];
  cursor?: string;
  startCursor?: string;
  endCursor?: string;
  issuedBy?: number;
  walk?: number;
  remote: string;
  /** The kind of a 400 refusal ("invalid-cursor", ...). */
  refusal?: string;
  /** The X-Harness-Client header and User-Agent the request carried: what tells clients' walks apart. */
  client?: string;
  userAgent?: string;
}

/** A client's walk through a listing, as GET /harness/walks answers it. */
export interface Walk {
  id: number;
  listing: string;
  path: string;
  query: string;
  requests: number[];
  pages: number;
  rows: number;
  reachedEnd: boolean;
  rowsChecked: boolean;
  rowsMissed: number;
  rowsSeenTwice: number;
  waitedOutRetryAfter: boolean;
  problems: string[];
  [field: string]: unknown;
}

/** What GET /harness/verify judges: its parameters. */
export interface VerifyQuery {
  /** One listing's walks and requests only. */
  listing?: Listing;
  /** Count only the requests whose query carries each parameter with each value (as the client sent it); `true`: only the parameter. */
  match?: Record<string, string | string[] | true>;
  /** Count only the requests answered with this HTTP status. */
  status?: number;
  /** Judge the number of requests selected: exactly. */
  count?: number;
  /** ... at least (with atMost, a range). */
  atLeast?: number;
  /** ... at most. */
  atMost?: number;
  /** Accept walks that stop before the end (they must still be clean). */
  partial?: boolean;
}

/** The verdict of GET /harness/verify. */
export interface Verdict {
  pass: boolean;
  messages: string[];
  /** The number of requests selected, when a count was judged. */
  count?: number;
}

/** What GET /harness/coverage answers: the items ("page:backward", "variant:Submit Order"...) served and never served. */
export interface Coverage {
  /** The API requests of the journal it covers. */
  requests: number;
  /** Kind by kind (listing, variant, enum, branch, edge, page, refusal, fault): the items served, with how many answers held each, and those never served. */
  kinds: { kind: string; served: { item: string; count: number; first: number }[]; never: string[] }[];
  /** What it could not cover (edges outside the edge world...). */
  notes: string[];
  /** Every item required was served; missing lists those that were not. */
  pass: boolean;
  missing: string[];
}

/** The API's error body. */
export interface ErrorBody {
  code: number;
  message: string;
  details: { "@type": string; code: number; message: string; inner?: string }[];
}

/** A control API answer that is not a 200: its status and error body. */
export class HarnessError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | string,
    what: string,
  ) {
    super(`${what}: HTTP ${status}: ${typeof body === "string" ? body : describe(body)}`);
    this.name = "HarnessError";
  }
}

function describe(body: ErrorBody): string {
  const details = (body.details ?? []).map((d) => (d.inner ? `${d.message}: ${d.inner}` : d.message));
  return details.length > 0 ? `${body.message}: ${details.join("; ")}` : body.message;
}

/** The line `harness serve` prints when it serves: its base URL. */
const servingLine = /^serving .* on (http:\/\/\S+)$/m;

/** How long stop waits for the mock to shut down before it kills it. */
const stopTimeoutMs = 15_000;

/** A running mock: `url` is the base URL of its API and of its control API under /harness/. */
export class HarnessMock {
  private exited: Promise<number | null>;

  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    exited: Promise<number | null>,
  ) {
    this.exited = exited;
  }

  /**
   * Starts `harness serve --addr 127.0.0.1:0` with opts.args and resolves once it serves; rejects with
   * what it wrote on stderr when it exits first or does not serve within the timeout.
   */
  static start(opts: StartOptions = {}): Promise<HarnessMock> {
    const binary = opts.binary ?? process.env["HARNESS_BIN"] ?? "harness";
    const args = ["serve", "--addr", "127.0.0.1:0", "--log-format", "none", ...(opts.args ?? [])];
    const timeoutMs = opts.startTimeoutMs ?? 60_000;
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => {
      child.once("exit", (code) => resolve(code));
      child.once("error", () => resolve(null));
    });
    // A test runner that ends without stop() must not leave the mock behind.
    const killOnExit = () => child.kill("SIGKILL");
    process.once("exit", killOnExit);
    exited.then(() => process.removeListener("exit", killOnExit));
    return new Promise<HarnessMock>((resolve, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        const said = stderr.trim();
        reject(new Error(`harness mock: ${binary} ${args.join(" ")}: ${why}${said ? `\n${said}` : ""}`));
      };
      const timer = setTimeout(() => fail(`not serving after ${timeoutMs} ms`), timeoutMs);
      child.stderr!.setEncoding("utf8").on("data", (s: string) => {
        stderr = (stderr + s).slice(-8192);
      });
      child.stdout!.setEncoding("utf8").on("data", (s: string) => {
        stdout = (stdout + s).slice(-8192);
        const m = servingLine.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(new HarnessMock(m[1]!, child, exited));
        }
      });
      child.once("error", (err) =>
        fail(`${err.message}${binary === "harness" ? " (set HARNESS_BIN or the binary option to the harness binary)" : ""}`),
      );
      child.once("exit", (code, signal) => fail(`exited (${signal ?? `code ${code}`}) before serving`));
    });
  }

  /** Stops the mock (SIGTERM: it shuts down gracefully), killing it if it has not exited within 15 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), stopTimeoutMs);
    });
    const how = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (how === "late") {
      this.child.kill("SIGKILL");
      await this.exited;
    }
  }

  /** GET /harness/status. */
  status(): Promise<Status> {
    return this.control<Status>("GET", "/harness/status");
  }

  /** POST /harness/reset: the world as built, rules and counts at start, the journal empty, the rows added gone. */
  reset(): Promise<Status> {
    return this.control<Status>("POST", "/harness/reset");
  }

  /** POST /harness/advance: adds blocks to the live chain. */
  advance(blocks: number): Promise<Status> {
    return this.control<Status>("POST", `/harness/advance?blocks=${blocks}`);
  }

  /** POST /harness/faults: replaces the fault rules (docs/serve.md); none: no rule. */
  setFaults(rules: object[] = []): Promise<Status> {
    return this.control<Status>("POST", "/harness/faults", { rules });
  }

  /**
   * POST /harness/rows: adds records to a listing, each as the listing serves it (a node, not an edge), checked
   * against its schema; rejects with a HarnessError whose details name each violation's place (/rows/N/...).
   * With replace, a row takes the place of the row of its key. reset() removes them.
   */
  addRows(listing: Listing, rows: object[], options: { replace?: boolean } = {}): Promise<Status> {
    return this.control<Status>("POST", "/harness/rows", { listing, rows, replace: options.replace ?? false });
  }

  /** GET /harness/requests: the requests received, newest first. */
  async requests(filter: { listing?: Listing; since?: number | string } = {}): Promise<JournalRequest[]> {
    const q = new URLSearchParams();
    if (filter.listing) q.set("listing", filter.listing);
    if (filter.since !== undefined) q.set("since", String(filter.since));
    const body = await this.control<{ requests: JournalRequest[] }>("GET", withQuery("/harness/requests", q));
    return body.requests;
  }

  /** DELETE /harness/requests: empties the journal. */
  async clearRequests(): Promise<void> {
    await this.control("DELETE", "/harness/requests");
  }

  /** GET /harness/walks: the client's walks through the listings, oldest first, checked. */
  async walks(listing?: Listing): Promise<Walk[]> {
    const q = new URLSearchParams();
    if (listing) q.set("listing", listing);
    const body = await this.control<{ walks: Walk[] }>("GET", withQuery("/harness/walks", q));
    return body.walks;
  }

  /**
   * GET /harness/verify: without a count, every walk complete and clean and no warning; with count, atLeast or
   * atMost, the number of requests listing, match and status select.
   */
  verify(query: VerifyQuery = {}): Promise<Verdict> {
    return this.control<Verdict>("GET", withQuery("/harness/verify", verifyParams(query)));
  }

  /** The number of requests listing, match and status select: verify with a count, its messages on failure. */
  async count(query: Omit<VerifyQuery, "count" | "atLeast" | "atMost" | "partial">): Promise<number> {
    const v = await this.verify({ ...query, atLeast: 0 });
    if (v.count === undefined) throw new Error(`harness mock: no count in the verdict ${JSON.stringify(v)}`);
    return v.count;
  }

  /** Throws an Error with the verdict's messages unless verify(query) passes: for any test runner. */
  async assertVerified(query: VerifyQuery = {}): Promise<void> {
    const v = await this.verify(query);
    if (!v.pass) {
      throw new Error(`harness mock: verify failed:\n  ${v.messages.join("\n  ")}`);
    }
  }

  /**
   * GET /harness/coverage: what the mock served since the journal was last emptied, judged by the requirements given
   * (each an item such as "page:backward", "kind:*" for every item of a kind, or several separated by commas).
   */
  coverage(...require: string[]): Promise<Coverage> {
    return this.control<Coverage>("GET", withQuery("/harness/coverage", coverageParams(require)));
  }

  /** GET /harness/coverage?format=text: the same, for people (a test's log). */
  async coverageText(...require: string[]): Promise<string> {
    const q = coverageParams(require);
    q.set("format", "text");
    const res = await fetch(this.url + withQuery("/harness/coverage", q));
    const text = await res.text();
    if (res.status !== 200) throw new HarnessError(res.status, text, "GET /harness/coverage");
    return text;
  }

  /**
   * Throws an Error naming the items required and never served unless each was served: for any test runner. A
   * requirement naming no item the mock could serve rejects with a HarnessError (400).
   */
  async assertCovered(...require: string[]): Promise<void> {
    const c = await this.coverage(...require);
    if (!c.pass) {
      throw new Error(`harness mock: required and never served: ${c.missing.join(", ")}`);
    }
  }

  private async control<T>(method: string, path: string, body?: object): Promise<T> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { "Content-Type": "application/json" };
    }
    const res = await fetch(this.url + path, init);
    const text = await res.text();
    if (res.status !== 200) {
      let parsed: ErrorBody | string = text;
      try {
        parsed = JSON.parse(text) as ErrorBody;
      } catch {
        // not the error body: kept as text
      }
      throw new HarnessError(res.status, parsed, `${method} ${path}`);
    }
    return JSON.parse(text) as T;
  }
}

/** The query string of GET /harness/verify for q. */
export function verifyParams(q: VerifyQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (q.listing) p.set("listing", q.listing);
  for (const [name, values] of Object.entries(q.match ?? {})) {
    if (values === true) {
      p.append("match", name);
      continue;
    }
    for (const v of Array.isArray(values) ? values : [values]) p.append("match", `${name}=${v}`);
  }
  for (const k of ["status", "count", "atLeast", "atMost"] as const) {
    const v = q[k];
    if (v !== undefined) p.set(k, String(v));
  }
  if (q.partial) p.set("partial", "true");
  return p;
}

/** The query string of GET /harness/coverage for requirements. */
function coverageParams(require: string[]): URLSearchParams {
  const p = new URLSearchParams();
  for (const r of require) p.append("require", r);
  return p;
}

function withQuery(path: string, q: URLSearchParams): string {
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
