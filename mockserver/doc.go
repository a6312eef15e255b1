// Package mockserver is the HTTP side of the mock of the chain data query
// API: the five listings with every pagination, filter, epoch and error rule
// of the spec, as docs/behaviour.md states them, served from a store.Store.
//
// New returns the http.Handler serving a store; the store (package store)
// holds the records sorted by their keys, so a page is found by binary
// search, whatever its depth:
//
//	w, _ := world.Generate(world.Options{Seed: 1})
//	st, _ := store.New(w)
//	http.ListenAndServe("127.0.0.1:8080", mockserver.New(mockserver.Config{}, st))
//
// harness serve serves it as a server facing hostile clients should be
// served (HTTPServer: its timeouts and header limit), on a listener whose
// connections send each page in one write (Listener):
//
//	ln, _ := net.Listen("tcp", "127.0.0.1:8080")
//	mockserver.New(mockserver.Config{}, st).HTTPServer().Serve(mockserver.Listener(ln))
//
// The mock is also a test partner. A store.Chain grows the store as a live
// network does, appending whole blocks at the newest end of every listing;
// faults (package faults) make it misbehave on purpose, by rule or by a
// request's X-Harness-Fault header; and with Config.Control the control API
// under /harness/ reads its state, advances the chain, replaces the fault
// rules and resets it. Package mocktest starts it for a Go test.
//
// The mock also watches its clients: an answer to a request it reads
// differently from what the client likely meant carries X-Harness-Warning
// headers (warnings.go; Config.StrictParams refuses such requests), and the
// request journal (package journal; observe.go records each request in it)
// keeps what it received, read back as the clients' walks through the
// listings, checked (Server.Requests, Server.Walks).
package mockserver
