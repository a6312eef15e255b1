// Package journal is the mock's request journal: it records what clients
// asked (the API requests the mock received, newest first, bounded) and
// reads them back as the walks each client made through the listings,
// following cursors page after page, checked against what each page should
// have held.
//
// The mock (package mockserver) journals each request it answers: it
// takes an ID with Journal.Reserve as the request arrives and stores its
// Record with Journal.Add once the answer's status is written. The walks
// read the listings through a Source, which the mock implements over its
// store; this package imports no part of the mock's HTTP side.
package journal
