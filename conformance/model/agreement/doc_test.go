// Package agreement sets the model's oracle beside the mock server: two
// readings of the spec written apart, which must agree on every generated
// query. It is a package of its own so that the model's unit tests (and the
// mutation testing that runs them once per mutant) do not link the mock.
package agreement
