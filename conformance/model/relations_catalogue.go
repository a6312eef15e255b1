package model

// The names of the relations, as the catalogue lists them.
const (
	RelGamesWindow       = "games-window"
	RelGamesSpan         = "games-span"
	RelGamesID           = "games-id-filter"
	RelGamesScope        = "games-scope-filter"
	RelGamesTeam         = "games-team-filter"
	RelGamesParty        = "games-party-filter"
	RelSnapshotsHeight   = "snapshots-height-header"
	RelRotationsChain    = "rotations-chain"
	RelRotationsChange   = "rotations-change"
	RelRotationsNode     = "rotations-node-filter"
	RelRotationsHeight   = "rotations-height-header"
	RelParametersUnique  = "parameters-unique-key"
	RelTxOneVariant      = "tx-one-variant"
	RelTxTypeKind        = "tx-type-kind"
	RelTxCursor          = "tx-cursor"
	RelTxError           = "tx-error-code"
	RelTxCmdFilter       = "tx-cmd-filter"
	RelTxPartiesFilter   = "tx-parties-filter"
	RelTxAmendSize       = "tx-amendment-size"
	RelTxCancelMarket    = "tx-cancellation-market"
	RelTxStopCancel      = "tx-stop-cancellation-market"
	RelTxExpiryGTT       = "tx-submission-expiry"
	RelTxLimitPrice      = "tx-submission-price"
	RelTxPostOnly        = "tx-submission-post-only"
	RelTxReduceOnly      = "tx-submission-reduce-only"
	RelTxIceberg         = "tx-iceberg-sizes"
	RelTxPeggedPrice     = "tx-pegged-price"
	RelTxRationale       = "tx-rationale-lengths"
	RelTxIndividualScope = "tx-dispatch-individual-scope"
	RelTxRankTable       = "tx-dispatch-rank-table"
	RelTxRecurring       = "tx-recurring-epochs"
	RelTxAccounts        = "tx-transfer-accounts"
	RelTxFractions       = "tx-fractions"
	RelTxSignedBounds    = "tx-signed-bounds"
	RelTxPositive        = "tx-non-negative"
	RelTxBoundsOrdered   = "tx-bounds-ordered"
	RelTxAmmBounds       = "tx-amm-bounds"
	RelTxOneProduct      = "tx-one-product"
	RelTxOneRiskModel    = "tx-one-risk-model"
	RelTxStaleness       = "tx-staleness-per-source"
	RelTxNanos           = "tx-timestamps-nanoseconds"
	RelTxSeconds         = "tx-timestamps-seconds"
	RelBlockTimestamp    = "block-timestamp-unit"
)

// DeploymentScope is the scope of the relations about the answers' block
// headers rather than one listing's records.
const DeploymentScope = "deployment"

// acceptedWhy is why the command relations are judged on accepted
// transactions only.
const acceptedWhy = "judged on accepted transactions (code 0) only: the rule is one the network applies before it accepts a command, and a rejected transaction carries its command as submitted"

// RelationCatalogue lists every relation the relation rules judge: each
// clause of the spec that ties a field to another field, to another record,
// to the query or to the chain's time, and the few docs/behaviour.md adds.
var RelationCatalogue = []Relation{
	// Games.
	{Name: RelGamesWindow, Scope: "games", Kind: "query", Level: Must, Section: "4.1",
		Quote: "oldest epoch (inclusive); most recent epoch (inclusive)",
		Text:  "every game of an answer lies inside the epoch window its query asks for (epochFrom and epochTo, section 8's rules)",
		Why:   "with epochTo, games lie in [max(epochFrom, epochTo-29), epochTo] (in [epochTo-29, epochTo] when epochFrom is above it, which both the spec's rule 4 and docs/behaviour.md keep inside); with epochFrom alone, in [epochFrom, epochFrom+29] (rule 3); the parameters' names are docs/behaviour.md's, and a query that spells them otherwise or gives one twice is not judged"},
	{Name: RelGamesSpan, Scope: "games", Kind: "answer", Level: Must, Section: "8",
		Quote: "Epoch range | list games | at most 30 epochs per request, both ends inclusive",
		Text:  "the games of one answer span at most 30 epochs",
		Why:   "every game lies within 29 epochs of the answer's newest, whatever the query"},
	{Name: RelGamesID, Scope: "games", Kind: "query", Level: Must, Section: "4.1",
		Quote: "Query filters (no request body): entity scope (enum EntityScope, default ENTITY_SCOPE_UNSPECIFIED); game ID",
		Text:  "with gameId, every game of the answer has the id asked for",
		Why:   "the parameter's name is docs/behaviour.md's"},
	{Name: RelGamesScope, Scope: "games", Kind: "query", Level: Should,
		Text: "with entityScope individuals (teams), every game of the answer has individual (team) entries",
		Why:  "the spec shows the filter but not what a game's fields mean (section 2.2: not shown); docs/behaviour.md reads the scope as the game's entries"},
	{Name: RelGamesTeam, Scope: "games", Kind: "query", Level: Should,
		Text: "with teamId (scope unspecified or teams), every game of the answer has an entry of that team",
		Why:  "docs/behaviour.md: a team game whose team entries name the team (section 2.2 does not show what the fields mean)"},
	{Name: RelGamesParty, Scope: "games", Kind: "query", Level: Should,
		Text: "with partyId, every game of the answer names the party as an individual entry or a team member participating",
		Why:  "docs/behaviour.md (section 2.2 does not show what the fields mean)"},
	// Core snapshots.
	{Name: RelSnapshotsHeight, Scope: "snapshots", Kind: "header", Level: Should,
		Text: "no snapshot of an answer is above the answer's X-Block-Height",
		Why:  "docs/behaviour.md: data-node answers carry the newest block's height in X-Block-Height; judged when the header is there"},
	// Key rotations.
	{Name: RelRotationsChain, Scope: "key-rotations", Kind: "answer", Level: Must, Section: "2.4",
		Quote: "newAddress (string, Ethereum address newly associated with the node); oldAddress (string, Ethereum address previously associated)",
		Text:  "a key rotation's oldAddress is the newAddress of the node's previous rotation",
		Why:   "judged between a node's rows that follow each other in one answer: a page is a run of the listing, so no rotation of the node lies between them"},
	{Name: RelRotationsChange, Scope: "key-rotations", Kind: "record", Level: Must, Section: "1",
		Quote: "List Ethereum key rotations: Ethereum key changes made by validator nodes",
		Text:  "a key rotation's newAddress differs from its oldAddress",
		Why:   "a rotation is a change of the node's key"},
	{Name: RelRotationsNode, Scope: "key-rotations", Kind: "query", Level: Must, Section: "4.3",
		Quote: "nodeId (string, optional; restricts to that node)",
		Text:  "with nodeId, every key rotation of the answer is of that node"},
	{Name: RelRotationsHeight, Scope: "key-rotations", Kind: "header", Level: Should,
		Text: "no key rotation of an answer is above the answer's X-Block-Height",
		Why:  "docs/behaviour.md: data-node answers carry the newest block's height in X-Block-Height; judged when the header is there"},
	// Network parameters.
	{Name: RelParametersUnique, Scope: "network-parameters", Kind: "answer", Level: Must, Section: "2.5",
		Quote: "key (string, unique key of the parameter)",
		Text:  "no two network parameters of one answer share a key"},
	// Transactions: the record.
	{Name: RelTxOneVariant, Scope: "transactions", Kind: "record", Level: Must, Section: "2.7",
		Quote: "Fields present in the listed structure (each is an optional sub-object; which one is set depends on the command type)",
		Text:  "a transaction's command sets at most one command variant",
		Why:   "counted among the variants the spec and docs/behaviour.md name; a field of another name may be a variant not shown"},
	{Name: RelTxTypeKind, Scope: "transactions", Kind: "record", Level: Should,
		Text: "a transaction's type names the kind of its command",
		Why:  "docs/behaviour.md names each kind's type (the spec does not show a transaction's other fields); judged when the transaction has a type and its command a kind with a name there"},
	{Name: RelTxCursor, Scope: "transactions", Kind: "record", Level: Should,
		Text: "a transaction's cursor is <block>.<index> of its own block and index",
		Why:  "docs/behaviour.md; judged when the transaction has a cursor (its index, when it has one)"},
	{Name: RelTxError, Scope: "transactions", Kind: "record", Level: Should,
		Text: "a transaction carries an error only when its code is not 0",
		Why:  "docs/behaviour.md: error is set only when code is not 0"},
	{Name: RelTxCmdFilter, Scope: "transactions", Kind: "query", Level: Should,
		Text: "with cmdTypes (excludeCmdTypes), every transaction's type is one (none) of them",
		Why:  "the spec filters by command type but does not show the transaction's type; docs/behaviour.md matches it exactly"},
	{Name: RelTxPartiesFilter, Scope: "transactions", Kind: "query", Level: Should,
		Text: "with parties, every transaction's submitter, or a receiver its command names, is one of them",
		Why:  "docs/behaviour.md: the sender is the submitter, a receiver a governance transfer's destination of a general account"},
	// Transactions: the command's input rules (accepted transactions).
	{Name: RelTxAmendSize, Scope: "transactions", Kind: "record", Level: Must, Section: "2.7", Accepted: true,
		Quote: "size: if set, sizeDelta must be 0; sizeDelta: if set, size must not be set",
		Text:  "an accepted order amendment does not set both size and a sizeDelta other than 0"},
	{Name: RelTxCancelMarket, Scope: "transactions", Kind: "record", Level: Must, Section: "2.7", Accepted: true,
		Quote: "orderId (string; if set, marketId must also be given)",
		Text:  "an accepted order cancellation with an orderId gives its marketId"},
	{Name: RelTxStopCancel, Scope: "transactions", Kind: "record", Level: Must, Section: "2.7", Accepted: true,
		Quote: "stopOrderId (string; if set, marketId must also be given)",
		Text:  "an accepted stop order cancellation with a stopOrderId gives its marketId"},
	{Name: RelTxExpiryGTT, Scope: "transactions", Kind: "record", Level: Must, Section: "2.7", Accepted: true,
		Quote: "expiresAt | int64 | Unix nanoseconds; can only be set when time in force is GTT",
		Text:  "an accepted order submission sets expiresAt only with time in force GTT"},
	{Name: RelTxLimitPrice, Scope: "transactions", Kind: "record", Level: Must, Section: "2.7", Accepted: true,
		Quote: "price | string | unsigned integer scaled to market decimals; required for limit orders, not required for market orders",
		Text:  "an accepted limit order submission that is not pegged has a price",
		Why:   "a pegged order's price is its offset from the reference (peggedOrder), so it is not judged"},
	{Name: RelTxPostOnly, Scope: "transactions", Kind: "record", Level: Must, Section: "2.7", Accepted: true,
		Quote: "postOnly | boolean | executes only if it would not trade on entry; valid for limit orders only",
		Text:  "an accepted order submission is post-only only when it is a limit order"},
	{Name: RelTxReduceOnly, Scope: "transactions", Kind: "record", Level: Must, Section: "2.7", Accepted: true,
		Quote: "reduceOnly | boolean | executes only if the trade moves the position closer to zero; valid for non-persistent orders only",
		Text:  "an accepted order submission is reduce-only only when it is not persistent (IOC or FOK)"},
	{Name: RelTxIceberg, Scope: "transactions", Kind: "record", Level: Should, Accepted: true,
		Text: "an accepted iceberg order shows no more than its size at its peak, and replenishes below its peak",
		Why:  "implied by the meanings of peakSize and minimumVisibleSize (section 2.7), not stated: minimumVisibleSize <= peakSize <= size"},
	{Name: RelTxPeggedPrice, Scope: "transactions", Kind: "record", Level: Should, Accepted: true,
		Text: "an accepted pegged order submission has no price of its own",
		Why:  "implied by peggedOrder (section 2.7: the price is offset from the reference at all times), not stated"},
	{Name: RelTxRationale, Scope: "transactions", Kind: "record", Level: Must, Section: "8", Accepted: true,
		Quote: "Proposal title | batch proposal rationale | 0 to 100 unicode characters; Proposal description | batch proposal rationale | 0 to 20000 unicode characters",
		Text:  "an accepted batch proposal's title has at most 100 and its description at most 20000 unicode characters"},
	{Name: RelTxIndividualScope, Scope: "transactions", Kind: "record", Level: Must, Section: "2.10", Accepted: true,
		Quote: "individualScope | enum IndividualScope | optional; only when entity scope is individuals",
		Text:  "an accepted dispatch strategy sets an individualScope only when its entity scope is individuals"},
	{Name: RelTxRankTable, Scope: "transactions", Kind: "record", Level: Must, Section: "2.10", Accepted: true,
		Quote: "rankTable | array of {startRank int64, shareRatio int64} | ordered by start rank; mandatory for rank and rank-lottery strategies",
		Text:  "an accepted dispatch strategy's rank table is ordered by start rank, and is there for the rank and rank-lottery strategies"},
	{Name: RelTxRecurring, Scope: "transactions", Kind: "record", Level: Must, Section: "2.10", Accepted: true,
		Quote: "recurring | object | startEpoch (uint64), endEpoch (uint64, last epoch paid)",
		Text:  "an accepted recurring transfer's endEpoch, when set, is not before its startEpoch",
		Why:   "the last epoch paid cannot come before the first; 0 is unset"},
	{Name: RelTxAccounts, Scope: "transactions", Kind: "record", Level: Must, Section: "2.10", Accepted: true,
		Quote: "source | string | empty for the network treasury; otherwise the market ID; destination | string | empty for network treasury; party public key for a party; market ID for a market insurance pool",
		Text:  "an accepted governance transfer names no account owner for the network treasury, and names one for a party's general account and for an insurance pool"},
	{Name: RelTxFractions, Scope: "transactions", Kind: "record", Level: Must, Section: "2.8", Accepted: true,
		Quote: "disposalFraction (string, 0 to 1); maxFractionConsumed (string, 0 to 1); insurancePoolFraction (string, 0 to 1 inclusive); marginFundingFactor (string, in [0, 1])",
		Text:  "an accepted market's fractions stated as 0 to 1 lie in [0, 1]"},
	{Name: RelTxSignedBounds, Scope: "transactions", Kind: "record", Level: Must, Section: "2.8", Accepted: true,
		Quote: "clampLowerBound and clampUpperBound (string, each in [-1, 1]); interestRate (string, continuously compounded, in [-1, 1])",
		Text:  "an accepted perpetual's clamp bounds and interest rate lie in [-1, 1]"},
	{Name: RelTxPositive, Scope: "transactions", Kind: "record", Level: Must, Section: "2.8", Accepted: true,
		Quote: "disposalSlippageRange (string, greater than 0, may exceed 1); tau (double, non-negative year fraction); sigma double (non-negative)",
		Text:  "an accepted market's disposal slippage range is above 0, and its log-normal tau and sigma are not negative"},
	{Name: RelTxBoundsOrdered, Scope: "transactions", Kind: "record", Level: Must, Section: "2.8", Accepted: true,
		Quote: "clampLowerBound and clampUpperBound (string, each in [-1, 1]), fundingRateLowerBound, fundingRateUpperBound",
		Text:  "an accepted perpetual's lower bounds (clamp, funding rate) are not above its upper bounds",
		Why:   "a pair the spec names lower and upper bound; judged when both are set"},
	{Name: RelTxAmmBounds, Scope: "transactions", Kind: "record", Level: Should, Accepted: true,
		Text: "an accepted AMM amendment's base price lies between its lower and upper bounds",
		Why:  "implied by their meanings (section 2.7: buy quoting stops at lowerBound, sell quoting at upperBound, base quoted at a position of zero), not stated"},
	{Name: RelTxOneProduct, Scope: "transactions", Kind: "record", Level: Must, Section: "2.8", Accepted: true,
		Quote: "Instrument: name (string), code (string), and exactly one product: future or perpetual",
		Text:  "an accepted market proposal's instrument has exactly one product",
		Why:   "future or perpetual; a new spot market may have a spot product instead (section 2.9)"},
	{Name: RelTxOneRiskModel, Scope: "transactions", Kind: "record", Level: Must, Section: "2.8", Accepted: true,
		Quote: "logNormal | object | risk model, valid when the log-normal model is selected; simple | object | risk model, valid when the simple model is selected",
		Text:  "an accepted market proposal sets at most one risk model (logNormal or simple)"},
	{Name: RelTxStaleness, Scope: "transactions", Kind: "record", Level: Must, Section: "2.8", Accepted: true,
		Quote: "sourceStalenessTolerance (string[]; first entry for the trade-based price, second for the book-based price, then one per oracle source)",
		Text:  "an accepted composite price configuration's staleness tolerances, when given, are one for trades, one for the book and one per oracle source",
		Why:   "its length is 2 plus the number of dataSourcesSpec"},
	{Name: RelTxNanos, Scope: "transactions", Kind: "units", Level: Must, Section: "2.7", Accepted: true,
		Quote: "expiresAt | int64 | new expiry, Unix nanoseconds; deliverOn (int64, Unix nanoseconds)",
		Text:  "an accepted command's timestamps in Unix nanoseconds (expiresAt, deliverOn) are near the chain's time read in nanoseconds",
		Why:   timeWindowWhy},
	{Name: RelTxSeconds, Scope: "transactions", Kind: "units", Level: Must, Section: "2.7", Accepted: true,
		Quote: "enactmentTimestamp (int64, Unix seconds, constrained by the minimum and maximum enactment network parameters); initial (uint64 Unix seconds, trigger at or after this Ethereum time)",
		Text:  "an accepted command's timestamps in Unix seconds (enactmentTimestamp, trigger times) are near the chain's time read in seconds",
		Why:   timeWindowWhy},
	// The answers' headers.
	{Name: RelBlockTimestamp, Scope: DeploymentScope, Kind: "header", Level: Should,
		Text: "an answer's X-Block-Timestamp, read in Unix nanoseconds, is a plausible time",
		Why:  "docs/behaviour.md names the unit; plausible is 2000 to 2200, which a value in milliseconds or seconds misses by decades"},
}

// timeWindowWhy says what "near the chain's time" means.
const timeWindowWhy = "near is at most 20 years before and 100 years after the chain's time: the answer's X-Block-Timestamp when it is a plausible time (2000 to 2200), else the transaction's createdAt when it is, else the timestamp must be plausible itself; a timestamp in the wrong unit is off by a factor of 1000 or more (milliseconds or seconds read as nanoseconds fall in January 1970, nanoseconds or milliseconds read as seconds tens of thousands of years ahead); 0 and unset are not judged"

// RelationNamed returns the catalogue's relation of that name.
func RelationNamed(name string) (Relation, bool) {
	for _, r := range RelationCatalogue {
		if r.Name == name {
			return r, true
		}
	}
	return Relation{}, false
}
