// Package txrules declares the conformance rules of the transactions
// listing (/transactions, which may live apart from the data node): its
// paging by first/after and last/before, its windows, its filters, its
// errors and its schema (TransactionsRules, which the runner calls inside
// the listing's scope).
package txrules
