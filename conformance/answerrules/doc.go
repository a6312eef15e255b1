// Package answerrules declares the conformance rules every listing shares
// about its answers: each body valid against its schema and served as JSON
// (SchemaRules), a bad request refused with the error body (PagedErrorRules,
// and the helpers the transactions listing's error rules use), and the
// deployment's rate limit (DeploymentRules). The runner and the listings'
// rule packages call them where the rules belong in the suite's tree.
package answerrules
