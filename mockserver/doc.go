// Package mockserver is an in-memory server of the chain data query API: the
// five listings with every pagination, filter, epoch and error rule of the
// spec, as docs/behaviour.md states them.
//
// A Store holds the records of a generators.World sorted by their keys, with
// each row's JSON and cursor encoded once; a page is found by binary search,
// so its cost depends on the page size, not on its depth or the size of the
// data. New returns the http.Handler serving a Store:
//
//	w, _ := generators.Generate(generators.Options{Seed: 1})
//	store, _ := mockserver.NewStore(w)
//	http.ListenAndServe("127.0.0.1:8080", mockserver.New(mockserver.Config{}, store))
package mockserver
