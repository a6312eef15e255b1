package records

// Listing names, as used in fixture file names and the manifest.
const (
	ListingGames             = "games"
	ListingSnapshots         = "snapshots"
	ListingKeyRotations      = "keyrotations"
	ListingNetworkParameters = "networkparameters"
	ListingTransactions      = "transactions"
)

// Listings lists the five listings in a fixed order.
var Listings = []string{ListingGames, ListingSnapshots, ListingKeyRotations, ListingNetworkParameters, ListingTransactions}
