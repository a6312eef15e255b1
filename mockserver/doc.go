// Package mockserver is an in-memory server of the chain data query API: the
// five listings with every pagination, filter, epoch and error rule of the
// spec, as docs/behaviour.md states them.
//
// A Store holds the records of a generators.World sorted by their keys,
// oldest first, with each row's JSON and cursor encoded once; a page is found
// by binary search, so its cost depends on the page size, not on its depth or
// the size of the data. New returns the http.Handler serving a Store:
//
//	w, _ := generators.Generate(generators.Options{Seed: 1})
//	store, _ := mockserver.NewStore(w)
//	http.ListenAndServe("127.0.0.1:8080", mockserver.New(mockserver.Config{}, store))
//
// The mock is also a test partner. A Chain grows the store as a live
// network does, appending whole blocks at the newest end of every listing
// (Store.Append); faults (package faults) make it misbehave on purpose, by
// rule or by a request's X-Harness-Fault header; and with Config.Control the
// control API under /harness/ reads its state, advances the chain, replaces
// the fault rules and resets it. Package mocktest starts it for a Go test.
//
// The mock also watches its clients: an answer to a request it reads
// differently from what the client likely meant carries X-Harness-Warning
// headers (warnings.go; Config.StrictParams refuses such requests), and the
// request journal (journal.go) keeps what it received, read back as the
// clients' walks through the listings, checked (walks.go).
package mockserver
