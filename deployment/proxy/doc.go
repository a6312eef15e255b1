// Package proxy is a validating reverse proxy for the chain data query API:
// it forwards every request to a real deployment and checks each listing
// response on its way back, so that a client's own traffic tests the
// deployment.
//
// The upstream gets the request's query as the client sent it, even where it
// does not parse (%zz, a semicolon), and the client gets the upstream's
// status, headers and body byte for byte, as they stream. For GET requests to the five listing paths the proxy keeps a
// copy of the body as it passes (up to Config.MaxBodyBytes; larger bodies
// are counted as unchecked) and, once the client has the whole response,
// hands it to a bounded pool of checkers (Config.Checkers, with a queue
// bounded in entries and bytes, Config.CheckQueue and CheckQueueBytes).
// Checking never holds a request back: when every checker is busy and the
// queue is full, the response has already gone to the client, and it is
// counted as unchecked (UncheckedBusy). Checks use spare CPU: one starts
// when no goroutine waits for a CPU, and while requests are in flight and
// goroutines wait for a CPU the checkers rest so as to use at most
// Config.CheckCPU of the CPUs. Config.CheckSample checks a fraction of the responses, chosen by a
// counter so that a run is repeatable; the others are counted as unchecked
// (UncheckedSampledOut). Each check covers:
//
//   - the body against the listing's response schema, or against Error for
//     any status but 200, in the reference profile (schemas.Reference); a
//     body that fails it is validated in the spec profile too, and each
//     violation is labelled spec when the spec profile also finds it (the
//     body breaks the spec) and reference when only the reference profile
//     does (our stricter reading);
//   - the pagination rules one response shows: every edge has a cursor,
//     pageInfo.startCursor and endCursor are the first and last edge's
//     cursors (empty on an empty page), a page holds at most the count
//     asked, hasPreviousPage is false on a forward page from the start and
//     hasNextPage false on a backward page from the end or a forward page
//     shorter than asked, rows are in the listing's order (transactions
//     newest to oldest by block and index);
//   - the filters of the query, where a row shows them: nodeId, gameId,
//     entityScope, teamId, partyId and the epoch window of games (at most
//     30 epochs); cmdTypes and excludeCmdTypes, the before and after
//     cursors and each row's "<block>.<index>" cursor of transactions. The
//     parties filter is not checked: a party may be the receiver of a
//     command whose shape the spec does not give.
//
// Each violation is one structured log line (listing, path, query, status,
// rule, profile for a schema violation, JSON path, message) and is counted;
// MetricsPath answers the counts (schema violations also by profile,
// unchecked responses by reason) and the checkers' gauges, as JSON, or in
// the Prometheus text format.
package proxy
