// Package netparams is the real network's table of network parameters:
// each key with its value type and default, as the network ships them. The
// world's network parameters listing is drawn from it, and so are the keys
// governance proposals name.
package netparams
