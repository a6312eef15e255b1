package schemas_test

import (
	"reflect"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// Where a field comes from.
const (
	fromSpec   = "spec"   // the spec's tables and prose
	fromDesign = "design" // the harness's decision where the spec says "not shown"
	fromNode   = "node"   // the real network's node, beyond what the spec shows
)

// Wire kinds of a field, as canonical proto3 JSON writes them:
//
//	string     any JSON string (a digit string counts too: the spec types
//	           amounts, prices and IDs as string)
//	uint64     a JSON string of unsigned 64-bit decimal digits
//	int64      a JSON string of signed 64-bit decimal digits
//	integer    a JSON number without fraction (int32, and the five int64
//	           fields that are 32-bit on the real network)
//	number     a JSON number (double)
//	boolean
//	enum:X     the name of a value of enumeration X
//	object:X   an object of definition X
//	array:K    an array of K
//	any        any JSON value
//
// specFields lists every field of every definition. The spec's own fields
// are copied from its tables and prose (the spec is outside the repository
// and is not read here); the others say where they come from. Renaming a
// field, retyping it, or adding one without a row fails the test.
var specFields = []struct {
	def, field, kind, from string
}{
	// 2.1 Shared shapes
	{"PageInfo", "startCursor", "string", fromSpec},
	{"PageInfo", "endCursor", "string", fromSpec},
	{"PageInfo", "hasNextPage", "boolean", fromSpec},
	{"PageInfo", "hasPreviousPage", "boolean", fromSpec},
	{"Error", "code", "integer", fromSpec},
	{"Error", "message", "string", fromSpec},
	{"Error", "details", "array:object:ErrorDetail", fromSpec},
	{"ErrorDetail", "@type", "string", fromSpec},

	// 2.2 Game, 4.1
	{"ListGamesResponse", "games", "object:GamesConnection", fromSpec},
	{"GamesConnection", "edges", "array:object:GameEdge", fromSpec},
	{"GamesConnection", "pageInfo", "object:PageInfo", fromSpec},
	{"GameEdge", "cursor", "string", fromSpec},
	{"GameEdge", "node", "object:Game", fromSpec},
	{"Game", "epoch", "string", fromSpec},
	{"Game", "id", "string", fromSpec},
	{"Game", "participants", "string", fromSpec},
	{"Game", "rewardAssetId", "string", fromSpec},
	{"Game", "individual", "object:IndividualEntities", fromSpec},
	{"Game", "team", "object:TeamEntities", fromSpec},
	{"IndividualEntities", "individual", "array:object:IndividualEntry", fromSpec},
	{"TeamEntities", "team", "array:object:TeamEntry", fromSpec},
	{"IndividualEntry", "individual", "string", fromSpec},
	{"IndividualEntry", "rank", "string", fromSpec},
	{"IndividualEntry", "rewardEarned", "string", fromSpec},
	{"IndividualEntry", "rewardEarnedQuantum", "string", fromSpec},
	{"IndividualEntry", "rewardMetric", "enum:DispatchMetric", fromSpec},
	{"IndividualEntry", "totalRewardsEarned", "string", fromSpec},
	{"IndividualEntry", "totalRewardsEarnedQuantum", "string", fromSpec},
	{"IndividualEntry", "volume", "string", fromSpec},
	{"TeamEntry", "rank", "string", fromSpec},
	{"TeamEntry", "rewardEarned", "string", fromSpec},
	{"TeamEntry", "rewardEarnedQuantum", "string", fromSpec},
	{"TeamEntry", "rewardMetric", "enum:DispatchMetric", fromSpec},
	{"TeamEntry", "totalRewardsEarned", "string", fromSpec},
	{"TeamEntry", "totalRewardsEarnedQuantum", "string", fromSpec},
	{"TeamEntry", "volume", "string", fromSpec},
	{"TeamEntry", "team", "object:TeamParticipation", fromSpec},
	{"TeamParticipation", "teamId", "string", fromSpec},
	{"TeamParticipation", "membersParticipating", "array:object:IndividualEntry", fromSpec},

	// 2.3 Core snapshot, 4.2
	{"ListCoreSnapshotsResponse", "coreSnapshots", "object:CoreSnapshotConnection", fromSpec},
	{"CoreSnapshotConnection", "edges", "array:object:CoreSnapshotEdge", fromSpec},
	{"CoreSnapshotConnection", "pageInfo", "object:PageInfo", fromSpec},
	{"CoreSnapshotEdge", "cursor", "string", fromSpec},
	{"CoreSnapshotEdge", "node", "object:CoreSnapshot", fromSpec},
	{"CoreSnapshot", "blockHash", "string", fromSpec},
	{"CoreSnapshot", "blockHeight", "string", fromSpec},
	{"CoreSnapshot", "coreVersion", "string", fromSpec},
	{"CoreSnapshot", "protocolUpgradeBlock", "boolean", fromSpec},

	// 2.4 Ethereum key rotation, 4.3
	{"ListEthereumKeyRotationsResponse", "keyRotations", "object:EthereumKeyRotationConnection", fromSpec},
	{"EthereumKeyRotationConnection", "edges", "array:object:EthereumKeyRotationEdge", fromSpec},
	{"EthereumKeyRotationConnection", "pageInfo", "object:PageInfo", fromSpec},
	{"EthereumKeyRotationEdge", "cursor", "string", fromSpec},
	{"EthereumKeyRotationEdge", "node", "object:EthereumKeyRotation", fromSpec},
	{"EthereumKeyRotation", "blockHeight", "uint64", fromSpec},
	{"EthereumKeyRotation", "newAddress", "string", fromSpec},
	{"EthereumKeyRotation", "nodeId", "string", fromSpec},
	{"EthereumKeyRotation", "oldAddress", "string", fromSpec},

	// 2.5 Network parameter, 4.4
	{"ListNetworkParametersResponse", "networkParameters", "object:NetworkParameterConnection", fromSpec},
	{"NetworkParameterConnection", "edges", "array:object:NetworkParameterEdge", fromSpec},
	{"NetworkParameterConnection", "pageInfo", "object:PageInfo", fromSpec},
	{"NetworkParameterEdge", "cursor", "string", fromSpec},
	{"NetworkParameterEdge", "node", "object:NetworkParameter", fromSpec},
	{"NetworkParameter", "key", "string", fromSpec},
	{"NetworkParameter", "value", "string", fromSpec},

	// 2.6 Transaction, 4.5 (code is int64 in the spec, 32-bit on the wire)
	{"ListTransactionsResponse", "transactions", "array:object:Transaction", fromSpec},
	{"Transaction", "block", "uint64", fromSpec},
	{"Transaction", "code", "integer", fromSpec},
	{"Transaction", "command", "object:Command", fromSpec},
	{"Transaction", "index", "integer", fromDesign},
	{"Transaction", "hash", "string", fromDesign},
	{"Transaction", "submitter", "string", fromDesign},
	{"Transaction", "type", "string", fromDesign},
	{"Transaction", "cursor", "string", fromDesign},
	{"Transaction", "signature", "object:Signature", fromDesign},
	{"Transaction", "error", "string", fromDesign},
	{"Transaction", "createdAt", "string", fromDesign},
	{"Transaction", "version", "enum:TxVersion", fromDesign},
	{"Transaction", "pow", "object:ProofOfWork", fromDesign},
	{"ProofOfWork", "tid", "string", fromDesign},
	{"ProofOfWork", "nonce", "uint64", fromDesign},

	// 2.7 Command object
	{"Command", "amendAmm", "object:AmendAmm", fromSpec},
	{"Command", "announceNode", "object:AnnounceNode", fromSpec},
	{"Command", "applyReferralCode", "object:ApplyReferralCode", fromSpec},
	{"Command", "batchMarketInstructions", "object:BatchMarketInstructions", fromSpec},
	{"Command", "batchProposalSubmission", "object:BatchProposalSubmission", fromSpec},
	{"Command", "nonce", "uint64", fromDesign},
	{"Command", "blockHeight", "uint64", fromDesign},
	{"Command", "orderSubmission", "object:OrderSubmission", fromDesign},
	{"Command", "orderAmendment", "object:OrderAmendment", fromDesign},
	{"Command", "orderCancellation", "object:OrderCancellation", fromDesign},
	{"Command", "stopOrdersSubmission", "object:StopOrdersSubmission", fromDesign},
	{"Command", "stopOrdersCancellation", "object:StopOrderCancellation", fromDesign},
	{"Command", "updateMarginMode", "object:MarginModeUpdate", fromDesign},
	{"Command", "withdrawSubmission", "object:Opaque", fromDesign},
	{"Command", "proposalSubmission", "object:Opaque", fromDesign},
	{"Command", "voteSubmission", "object:Opaque", fromDesign},
	{"Command", "liquidityProvisionSubmission", "object:Opaque", fromDesign},
	{"Command", "liquidityProvisionAmendment", "object:Opaque", fromDesign},
	{"Command", "liquidityProvisionCancellation", "object:Opaque", fromDesign},
	{"Command", "delegateSubmission", "object:Opaque", fromDesign},
	{"Command", "undelegateSubmission", "object:Opaque", fromDesign},
	{"Command", "transfer", "object:Opaque", fromDesign},
	{"Command", "cancelTransfer", "object:Opaque", fromDesign},
	{"Command", "createReferralSet", "object:Opaque", fromDesign},
	{"Command", "updateReferralSet", "object:Opaque", fromDesign},
	{"Command", "joinTeam", "object:Opaque", fromDesign},
	{"Command", "updatePartyProfile", "object:Opaque", fromDesign},
	{"Command", "submitAmm", "object:Opaque", fromDesign},
	{"Command", "cancelAmm", "object:Opaque", fromDesign},
	{"Command", "nodeVote", "object:Opaque", fromDesign},
	{"Command", "nodeSignature", "object:Opaque", fromDesign},
	{"Command", "chainEvent", "object:Opaque", fromDesign},
	{"Command", "keyRotateSubmission", "object:Opaque", fromDesign},
	{"Command", "stateVariableProposal", "object:Opaque", fromDesign},
	{"Command", "validatorHeartbeat", "object:Opaque", fromDesign},
	{"Command", "ethereumKeyRotateSubmission", "object:Opaque", fromDesign},
	{"Command", "protocolUpgradeProposal", "object:Opaque", fromDesign},
	{"Command", "issueSignatures", "object:Opaque", fromDesign},
	{"Command", "oracleDataSubmission", "object:Opaque", fromDesign},
	{"Command", "delayedTransactionsWrapper", "object:Opaque", fromDesign},

	// amendAmm
	{"AmendAmm", "marketId", "string", fromSpec},
	{"AmendAmm", "commitmentAmount", "string", fromSpec},
	{"AmendAmm", "proposedFee", "string", fromSpec},
	{"AmendAmm", "slippageTolerance", "string", fromSpec},
	{"AmendAmm", "concentratedLiquidityParameters", "object:ConcentratedLiquidityParameters", fromSpec},
	{"ConcentratedLiquidityParameters", "base", "string", fromSpec},
	{"ConcentratedLiquidityParameters", "lowerBound", "string", fromSpec},
	{"ConcentratedLiquidityParameters", "upperBound", "string", fromSpec},
	{"ConcentratedLiquidityParameters", "leverageAtLowerBound", "string", fromSpec},
	{"ConcentratedLiquidityParameters", "leverageAtUpperBound", "string", fromSpec},

	// announceNode (corePubKeyIndex and Signature version: int64 in the
	// spec, 32-bit on the wire)
	{"AnnounceNode", "id", "string", fromSpec},
	{"AnnounceNode", "name", "string", fromSpec},
	{"AnnounceNode", "avatarUrl", "string", fromSpec},
	{"AnnounceNode", "infoUrl", "string", fromSpec},
	{"AnnounceNode", "country", "string", fromSpec},
	{"AnnounceNode", "chainPubKey", "string", fromSpec},
	{"AnnounceNode", "corePubKey", "string", fromSpec},
	{"AnnounceNode", "corePubKeyIndex", "integer", fromSpec},
	{"AnnounceNode", "ethereumAddress", "string", fromSpec},
	{"AnnounceNode", "submitterAddress", "string", fromSpec},
	{"AnnounceNode", "fromEpoch", "uint64", fromSpec},
	{"AnnounceNode", "ethereumSignature", "object:Signature", fromSpec},
	{"AnnounceNode", "coreSignature", "object:Signature", fromSpec},
	{"Signature", "algo", "string", fromSpec},
	{"Signature", "value", "string", fromSpec},
	{"Signature", "version", "integer", fromSpec},

	// applyReferralCode
	{"ApplyReferralCode", "id", "string", fromSpec},
	{"ApplyReferralCode", "doNotJoinTeam", "boolean", fromSpec},

	// batchMarketInstructions
	{"BatchMarketInstructions", "amendments", "array:object:OrderAmendment", fromSpec},
	{"BatchMarketInstructions", "cancellations", "array:object:OrderCancellation", fromSpec},
	{"BatchMarketInstructions", "stopOrdersCancellation", "array:object:StopOrderCancellation", fromSpec},
	{"BatchMarketInstructions", "stopOrdersSubmission", "array:object:StopOrdersSubmission", fromSpec},
	{"BatchMarketInstructions", "submissions", "array:object:OrderSubmission", fromSpec},
	{"BatchMarketInstructions", "updateMarginMode", "array:object:MarginModeUpdate", fromSpec},
	{"OrderAmendment", "marketId", "string", fromSpec},
	{"OrderAmendment", "orderId", "string", fromSpec},
	{"OrderAmendment", "price", "string", fromSpec},
	{"OrderAmendment", "size", "uint64", fromSpec},
	{"OrderAmendment", "sizeDelta", "int64", fromSpec},
	{"OrderAmendment", "expiresAt", "int64", fromSpec},
	{"OrderAmendment", "timeInForce", "enum:TimeInForce", fromSpec},
	{"OrderAmendment", "peggedOffset", "string", fromSpec},
	{"OrderAmendment", "peggedReference", "enum:PeggedReference", fromSpec},
	{"OrderCancellation", "marketId", "string", fromSpec},
	{"OrderCancellation", "orderId", "string", fromSpec},
	{"StopOrderCancellation", "marketId", "string", fromSpec},
	{"StopOrderCancellation", "stopOrderId", "string", fromSpec},
	{"StopOrdersSubmission", "fallsBelow", "object:StopOrderSetup", fromSpec},
	{"StopOrdersSubmission", "risesAbove", "object:StopOrderSetup", fromSpec},
	{"StopOrderSetup", "orderSubmission", "object:OrderSubmission", fromSpec},
	{"StopOrderSetup", "expiresAt", "int64", fromSpec},
	{"StopOrderSetup", "expiryStrategy", "enum:StopOrderExpiryStrategy", fromSpec},
	{"StopOrderSetup", "price", "string", fromSpec},
	{"StopOrderSetup", "trailingPercentOffset", "string", fromSpec},
	{"StopOrderSetup", "sizeOverrideSetting", "enum:SizeOverrideSetting", fromSpec},
	{"StopOrderSetup", "sizeOverrideValue", "object:SizeOverrideValue", fromSpec},
	{"SizeOverrideValue", "percentage", "string", fromSpec},
	{"OrderSubmission", "marketId", "string", fromSpec},
	{"OrderSubmission", "side", "enum:Side", fromSpec},
	{"OrderSubmission", "size", "uint64", fromSpec},
	{"OrderSubmission", "price", "string", fromSpec},
	{"OrderSubmission", "type", "enum:OrderType", fromSpec},
	{"OrderSubmission", "timeInForce", "enum:TimeInForce", fromSpec},
	{"OrderSubmission", "expiresAt", "int64", fromSpec},
	{"OrderSubmission", "postOnly", "boolean", fromSpec},
	{"OrderSubmission", "reduceOnly", "boolean", fromSpec},
	{"OrderSubmission", "reference", "string", fromSpec},
	{"OrderSubmission", "icebergOpts", "object:IcebergOpts", fromSpec},
	{"OrderSubmission", "peggedOrder", "object:PeggedOrder", fromSpec},
	{"IcebergOpts", "peakSize", "uint64", fromSpec},
	{"IcebergOpts", "minimumVisibleSize", "uint64", fromSpec},
	{"PeggedOrder", "offset", "string", fromSpec},
	{"PeggedOrder", "reference", "enum:PeggedReference", fromSpec},
	{"MarginModeUpdate", "marketId", "string", fromSpec},
	{"MarginModeUpdate", "mode", "enum:MarginMode", fromSpec},
	{"MarginModeUpdate", "marginFactor", "string", fromSpec},

	// batchProposalSubmission
	{"BatchProposalSubmission", "reference", "string", fromSpec},
	{"BatchProposalSubmission", "rationale", "object:ProposalRationale", fromSpec},
	{"BatchProposalSubmission", "terms", "object:BatchProposalTerms", fromSpec},
	{"ProposalRationale", "title", "string", fromSpec},
	{"ProposalRationale", "description", "string", fromSpec},
	{"BatchProposalTerms", "changes", "array:object:ProposalChange", fromSpec},
	{"BatchProposalTerms", "closingTimestamp", "int64", fromNode},
	{"ProposalChange", "enactmentTimestamp", "int64", fromSpec},
	{"ProposalChange", "cancelTransfer", "object:CancelTransfer", fromSpec},
	{"ProposalChange", "newAsset", "object:NewAsset", fromSpec},
	{"ProposalChange", "newFreeform", "object:NewFreeform", fromSpec},
	{"ProposalChange", "newMarket", "object:NewMarket", fromSpec},
	{"ProposalChange", "newSpotMarket", "object:NewSpotMarket", fromSpec},
	{"ProposalChange", "updateAsset", "object:UpdateAsset", fromSpec},
	{"ProposalChange", "updateMarket", "object:UpdateMarket", fromSpec},
	{"ProposalChange", "newTransfer", "object:NewTransfer", fromNode}, // the spec: "name not shown"
	{"ProposalChange", "validationTimestamp", "int64", fromNode},
	{"ProposalChange", "updateNetworkParameter", "object:Opaque", fromNode},
	{"ProposalChange", "updateSpotMarket", "object:Opaque", fromNode},
	{"ProposalChange", "updateMarketState", "object:Opaque", fromNode},
	{"ProposalChange", "updateReferralProgram", "object:Opaque", fromNode},
	{"ProposalChange", "updateVolumeDiscountProgram", "object:Opaque", fromNode},
	{"ProposalChange", "updateVolumeRebateProgram", "object:Opaque", fromNode},
	{"ProposalChange", "newProtocolAutomatedPurchase", "object:Opaque", fromNode},
	{"CancelTransfer", "changes", "object:CancelTransferConfiguration", fromSpec},
	{"CancelTransferConfiguration", "transferId", "string", fromSpec},
	{"NewAsset", "changes", "object:AssetDetails", fromSpec},
	{"AssetDetails", "name", "string", fromSpec},
	{"AssetDetails", "symbol", "string", fromSpec},
	{"AssetDetails", "quantum", "string", fromSpec},
	{"AssetDetails", "decimals", "uint64", fromSpec},
	{"AssetDetails", "builtinAsset", "object:BuiltinAsset", fromSpec},
	{"AssetDetails", "erc20", "object:Erc20Asset", fromSpec},
	{"BuiltinAsset", "maxFaucetAmountMint", "string", fromSpec},
	{"Erc20Asset", "chainId", "string", fromSpec},
	{"Erc20Asset", "contractAddress", "string", fromSpec},
	{"Erc20Asset", "lifetimeLimit", "string", fromSpec},
	{"Erc20Asset", "withdrawThreshold", "string", fromSpec},
	{"NewMarket", "changes", "object:NewMarketConfiguration", fromSpec},
	{"NewSpotMarket", "changes", "object:NewSpotMarketConfiguration", fromSpec},
	{"NewTransfer", "changes", "object:NewTransferConfiguration", fromSpec},
	{"UpdateAsset", "assetId", "string", fromSpec},
	{"UpdateAsset", "changes", "object:AssetDetailsUpdate", fromSpec},
	{"AssetDetailsUpdate", "erc20", "object:Erc20Update", fromSpec},
	{"AssetDetailsUpdate", "quantum", "string", fromSpec},
	{"Erc20Update", "lifetimeLimit", "string", fromSpec},
	{"Erc20Update", "withdrawThreshold", "string", fromSpec},
	{"UpdateMarket", "changes", "object:UpdateMarketConfiguration", fromSpec},
	{"UpdateMarket", "marketId", "string", fromNode},

	// 2.8 New futures market configuration
	{"NewMarketConfiguration", "decimalPlaces", "uint64", fromSpec},
	{"NewMarketConfiguration", "positionDecimalPlaces", "int64", fromSpec},
	{"NewMarketConfiguration", "tickSize", "string", fromSpec},
	{"NewMarketConfiguration", "enableTransactionReordering", "boolean", fromSpec},
	{"NewMarketConfiguration", "metadata", "array:string", fromSpec},
	{"NewMarketConfiguration", "instrument", "object:InstrumentConfiguration", fromSpec},
	{"NewMarketConfiguration", "priceMonitoringParameters", "object:PriceMonitoringParameters", fromSpec},
	{"NewMarketConfiguration", "liquidityMonitoringParameters", "object:LiquidityMonitoringParameters", fromSpec},
	{"NewMarketConfiguration", "liquiditySlaParameters", "object:LiquiditySlaParameters", fromSpec},
	{"NewMarketConfiguration", "liquidityFeeSettings", "object:LiquidityFeeSettings", fromSpec},
	{"NewMarketConfiguration", "liquidationStrategy", "object:LiquidationStrategy", fromSpec},
	{"NewMarketConfiguration", "markPriceConfiguration", "object:CompositePriceConfiguration", fromSpec},
	{"NewMarketConfiguration", "linearSlippageFactor", "string", fromSpec},
	{"NewMarketConfiguration", "quadraticSlippageFactor", "string", fromSpec},
	{"NewMarketConfiguration", "lpPriceRange", "string", fromSpec},
	{"NewMarketConfiguration", "successor", "object:SuccessorConfiguration", fromSpec},
	{"NewMarketConfiguration", "logNormal", "object:LogNormalRiskModel", fromSpec},
	{"NewMarketConfiguration", "simple", "object:SimpleRiskModel", fromSpec},
	{"PriceMonitoringParameters", "triggers", "array:object:PriceMonitoringTrigger", fromSpec},
	{"PriceMonitoringTrigger", "horizon", "int64", fromSpec},
	{"PriceMonitoringTrigger", "probability", "string", fromSpec},
	{"PriceMonitoringTrigger", "auctionExtension", "int64", fromSpec},
	{"LiquidityMonitoringParameters", "auctionExtension", "int64", fromSpec},
	{"LiquidityMonitoringParameters", "triggeringRatio", "string", fromSpec},
	{"LiquidityMonitoringParameters", "targetStakeParameters", "object:TargetStakeParameters", fromSpec},
	{"TargetStakeParameters", "timeWindow", "int64", fromSpec},
	{"TargetStakeParameters", "scalingFactor", "number", fromSpec},
	{"LiquiditySlaParameters", "commitmentMinTimeFraction", "string", fromSpec},
	{"LiquiditySlaParameters", "performanceHysteresisEpochs", "uint64", fromSpec},
	{"LiquiditySlaParameters", "priceRange", "string", fromSpec},
	{"LiquiditySlaParameters", "slaCompetitionFactor", "string", fromSpec},
	{"LiquidityFeeSettings", "method", "enum:LiquidityFeeMethod", fromSpec},
	{"LiquidityFeeSettings", "feeConstant", "string", fromSpec},
	{"LiquidationStrategy", "disposalFraction", "string", fromSpec},
	{"LiquidationStrategy", "disposalSlippageRange", "string", fromSpec},
	{"LiquidationStrategy", "disposalTimeStep", "int64", fromSpec},
	{"LiquidationStrategy", "fullDisposalSize", "uint64", fromSpec},
	{"LiquidationStrategy", "maxFractionConsumed", "string", fromSpec},
	{"SuccessorConfiguration", "parentMarketId", "string", fromSpec},
	{"SuccessorConfiguration", "insurancePoolFraction", "string", fromSpec},
	{"LogNormalRiskModel", "riskAversionParameter", "number", fromSpec},
	{"LogNormalRiskModel", "tau", "number", fromSpec},
	{"LogNormalRiskModel", "params", "object:LogNormalModelParams", fromSpec},
	{"LogNormalRiskModel", "riskFactorOverride", "object:RiskFactorOverride", fromSpec},
	{"LogNormalModelParams", "mu", "number", fromSpec},
	{"LogNormalModelParams", "r", "number", fromSpec},
	{"LogNormalModelParams", "sigma", "number", fromSpec},
	{"RiskFactorOverride", "long", "string", fromSpec},
	{"RiskFactorOverride", "short", "string", fromSpec},
	{"SimpleRiskModel", "factorLong", "number", fromSpec},
	{"SimpleRiskModel", "factorShort", "number", fromSpec},
	{"SimpleRiskModel", "maxMoveUp", "number", fromSpec},
	{"SimpleRiskModel", "minMoveDown", "number", fromSpec},
	{"SimpleRiskModel", "probabilityOfTrading", "number", fromSpec},
	{"InstrumentConfiguration", "name", "string", fromSpec},
	{"InstrumentConfiguration", "code", "string", fromSpec},
	{"InstrumentConfiguration", "future", "object:FutureProduct", fromSpec},
	{"InstrumentConfiguration", "perpetual", "object:PerpetualProduct", fromSpec},
	{"FutureProduct", "quoteName", "string", fromSpec},
	{"FutureProduct", "settlementAsset", "string", fromSpec},
	{"FutureProduct", "dataSourceSpecForSettlementData", "object:DataSourceDefinition", fromSpec},
	{"FutureProduct", "dataSourceSpecForTradingTermination", "object:DataSourceDefinition", fromSpec},
	{"FutureProduct", "dataSourceSpecBinding", "object:FutureBinding", fromSpec},
	{"FutureProduct", "cap", "object:FutureCap", fromSpec},
	{"FutureBinding", "settlementDataProperty", "string", fromSpec},
	{"FutureBinding", "tradingTerminationProperty", "string", fromSpec},
	{"FutureCap", "maxPrice", "string", fromSpec},
	{"FutureCap", "binarySettlement", "boolean", fromSpec},
	{"FutureCap", "fullyCollateralised", "boolean", fromSpec},
	{"PerpetualProduct", "quoteName", "string", fromSpec},
	{"PerpetualProduct", "settlementAsset", "string", fromSpec},
	{"PerpetualProduct", "dataSourceSpecForSettlementData", "object:DataSourceDefinition", fromSpec},
	{"PerpetualProduct", "dataSourceSpecForSettlementSchedule", "object:DataSourceDefinition", fromSpec},
	{"PerpetualProduct", "dataSourceSpecBinding", "object:PerpetualBinding", fromSpec},
	{"PerpetualProduct", "clampLowerBound", "string", fromSpec},
	{"PerpetualProduct", "clampUpperBound", "string", fromSpec},
	{"PerpetualProduct", "fundingRateLowerBound", "string", fromSpec},
	{"PerpetualProduct", "fundingRateUpperBound", "string", fromSpec},
	{"PerpetualProduct", "fundingRateScalingFactor", "string", fromSpec},
	{"PerpetualProduct", "interestRate", "string", fromSpec},
	{"PerpetualProduct", "marginFundingFactor", "string", fromSpec},
	{"PerpetualProduct", "internalCompositePriceConfiguration", "object:CompositePriceConfiguration", fromSpec},
	{"PerpetualBinding", "settlementDataProperty", "string", fromSpec},
	{"PerpetualBinding", "settlementScheduleProperty", "string", fromSpec},
	{"CompositePriceConfiguration", "cashAmount", "string", fromSpec},
	{"CompositePriceConfiguration", "compositePriceType", "enum:CompositePriceType", fromSpec},
	{"CompositePriceConfiguration", "decayPower", "uint64", fromSpec},
	{"CompositePriceConfiguration", "decayWeight", "string", fromSpec},
	{"CompositePriceConfiguration", "sourceWeights", "array:string", fromSpec},
	{"CompositePriceConfiguration", "sourceStalenessTolerance", "array:string", fromSpec},
	{"CompositePriceConfiguration", "dataSourcesSpec", "array:object:DataSourceDefinition", fromSpec},
	{"CompositePriceConfiguration", "dataSourcesSpecBinding", "array:object:CompositePriceSourceBinding", fromSpec},
	{"CompositePriceSourceBinding", "priceSourceProperty", "string", fromSpec},

	// 2.9 New spot market configuration
	{"NewSpotMarketConfiguration", "instrument", "object:SpotInstrumentConfiguration", fromSpec},
	{"NewSpotMarketConfiguration", "decimalPlaces", "uint64", fromSpec},
	{"NewSpotMarketConfiguration", "positionDecimalPlaces", "int64", fromSpec},
	{"NewSpotMarketConfiguration", "tickSize", "string", fromSpec},
	{"NewSpotMarketConfiguration", "enableTransactionReordering", "boolean", fromSpec},
	{"NewSpotMarketConfiguration", "metadata", "array:string", fromSpec},
	{"NewSpotMarketConfiguration", "priceMonitoringParameters", "object:PriceMonitoringParameters", fromSpec},
	{"NewSpotMarketConfiguration", "liquidityMonitoringParameters", "object:LiquidityMonitoringParameters", fromSpec},
	{"NewSpotMarketConfiguration", "liquiditySlaParameters", "object:LiquiditySlaParameters", fromSpec},
	{"NewSpotMarketConfiguration", "liquidityFeeSettings", "object:LiquidityFeeSettings", fromSpec},
	{"NewSpotMarketConfiguration", "linearSlippageFactor", "string", fromSpec},
	{"NewSpotMarketConfiguration", "quadraticSlippageFactor", "string", fromSpec},
	{"NewSpotMarketConfiguration", "logNormal", "object:LogNormalRiskModel", fromSpec},
	{"NewSpotMarketConfiguration", "simple", "object:SimpleRiskModel", fromSpec},
	{"SpotInstrumentConfiguration", "name", "string", fromSpec},
	{"SpotInstrumentConfiguration", "code", "string", fromSpec},
	{"SpotInstrumentConfiguration", "future", "object:FutureProduct", fromSpec},
	{"SpotInstrumentConfiguration", "perpetual", "object:PerpetualProduct", fromSpec},
	{"SpotInstrumentConfiguration", "spot", "object:SpotProduct", fromSpec},
	{"SpotProduct", "baseAsset", "string", fromSpec},
	{"SpotProduct", "quoteAsset", "string", fromSpec},

	// 2.10 Governance transfer configuration
	{"NewTransferConfiguration", "sourceType", "enum:AccountType", fromSpec},
	{"NewTransferConfiguration", "source", "string", fromSpec},
	{"NewTransferConfiguration", "destinationType", "enum:AccountType", fromSpec},
	{"NewTransferConfiguration", "destination", "string", fromSpec},
	{"NewTransferConfiguration", "asset", "string", fromSpec},
	{"NewTransferConfiguration", "amount", "string", fromSpec},
	{"NewTransferConfiguration", "fractionOfBalance", "string", fromSpec},
	{"NewTransferConfiguration", "transferType", "enum:GovernanceTransferType", fromSpec},
	{"NewTransferConfiguration", "oneOff", "object:OneOffTransfer", fromSpec},
	{"NewTransferConfiguration", "recurring", "object:RecurringTransfer", fromSpec},
	{"OneOffTransfer", "deliverOn", "int64", fromSpec},
	{"RecurringTransfer", "startEpoch", "uint64", fromSpec},
	{"RecurringTransfer", "endEpoch", "uint64", fromSpec},
	{"RecurringTransfer", "factor", "string", fromSpec},
	{"RecurringTransfer", "dispatchStrategy", "object:DispatchStrategy", fromSpec},
	{"DispatchStrategy", "assetForMetric", "string", fromSpec},
	{"DispatchStrategy", "metric", "enum:DispatchMetric", fromSpec},
	{"DispatchStrategy", "markets", "array:string", fromSpec},
	{"DispatchStrategy", "entityScope", "enum:EntityScope", fromSpec},
	{"DispatchStrategy", "individualScope", "enum:IndividualScope", fromSpec},
	{"DispatchStrategy", "teamScope", "array:string", fromSpec},
	{"DispatchStrategy", "nTopPerformers", "string", fromSpec},
	{"DispatchStrategy", "stakingRequirement", "string", fromSpec},
	{"DispatchStrategy", "notionalTimeWeightedAveragePositionRequirement", "string", fromSpec},
	{"DispatchStrategy", "windowLength", "uint64", fromSpec},
	{"DispatchStrategy", "lockPeriod", "uint64", fromSpec},
	{"DispatchStrategy", "distributionStrategy", "enum:DistributionStrategy", fromSpec},
	{"DispatchStrategy", "rankTable", "array:object:RankTableEntry", fromSpec},
	{"DispatchStrategy", "capRewardFeeMultiple", "string", fromSpec},
	{"DispatchStrategy", "transferInterval", "integer", fromSpec},
	{"RankTableEntry", "startRank", "integer", fromSpec},
	{"RankTableEntry", "shareRatio", "integer", fromSpec},

	// 2.11 Updated futures market configuration
	{"UpdateMarketConfiguration", "instrument", "object:UpdateInstrumentConfiguration", fromSpec},
	{"UpdateMarketConfiguration", "enableTransactionReordering", "boolean", fromSpec},
	{"UpdateMarketConfiguration", "metadata", "array:string", fromNode},
	{"UpdateMarketConfiguration", "priceMonitoringParameters", "object:PriceMonitoringParameters", fromNode},
	{"UpdateMarketConfiguration", "liquidityMonitoringParameters", "object:LiquidityMonitoringParameters", fromNode},
	{"UpdateMarketConfiguration", "liquiditySlaParameters", "object:LiquiditySlaParameters", fromNode},
	{"UpdateMarketConfiguration", "liquidityFeeSettings", "object:LiquidityFeeSettings", fromNode},
	{"UpdateMarketConfiguration", "liquidationStrategy", "object:LiquidationStrategy", fromNode},
	{"UpdateMarketConfiguration", "markPriceConfiguration", "object:CompositePriceConfiguration", fromNode},
	{"UpdateMarketConfiguration", "linearSlippageFactor", "string", fromNode},
	{"UpdateMarketConfiguration", "quadraticSlippageFactor", "string", fromNode},
	{"UpdateMarketConfiguration", "lpPriceRange", "string", fromNode},
	{"UpdateMarketConfiguration", "tickSize", "string", fromNode},
	{"UpdateMarketConfiguration", "allowedEmptyAmmLevels", "uint64", fromNode},
	{"UpdateMarketConfiguration", "logNormal", "object:LogNormalRiskModel", fromNode},
	{"UpdateMarketConfiguration", "simple", "object:SimpleRiskModel", fromNode},
	{"UpdateInstrumentConfiguration", "name", "string", fromSpec},
	{"UpdateInstrumentConfiguration", "code", "string", fromSpec},
	{"UpdateInstrumentConfiguration", "future", "object:UpdateFutureProduct", fromSpec},
	{"UpdateInstrumentConfiguration", "perpetual", "object:UpdatePerpetualProduct", fromSpec},
	{"UpdateFutureProduct", "quoteName", "string", fromSpec},
	{"UpdateFutureProduct", "dataSourceSpecForSettlementData", "object:DataSourceDefinition", fromSpec},
	{"UpdateFutureProduct", "dataSourceSpecForTradingTermination", "object:DataSourceDefinition", fromSpec},
	{"UpdateFutureProduct", "dataSourceSpecBinding", "object:FutureBinding", fromSpec},
	{"UpdatePerpetualProduct", "quoteName", "string", fromSpec},
	{"UpdatePerpetualProduct", "dataSourceSpecForSettlementData", "object:DataSourceDefinition", fromSpec},
	{"UpdatePerpetualProduct", "dataSourceSpecForSettlementSchedule", "object:DataSourceDefinition", fromSpec},
	{"UpdatePerpetualProduct", "dataSourceSpecBinding", "object:PerpetualBinding", fromSpec},
	{"UpdatePerpetualProduct", "clampLowerBound", "string", fromSpec},
	{"UpdatePerpetualProduct", "clampUpperBound", "string", fromSpec},
	{"UpdatePerpetualProduct", "fundingRateLowerBound", "string", fromSpec},
	{"UpdatePerpetualProduct", "fundingRateUpperBound", "string", fromSpec},
	{"UpdatePerpetualProduct", "fundingRateScalingFactor", "string", fromSpec},
	{"UpdatePerpetualProduct", "interestRate", "string", fromSpec},
	{"UpdatePerpetualProduct", "internalCompositePriceConfiguration", "object:CompositePriceConfiguration", fromSpec},
	{"UpdatePerpetualProduct", "marginFundingFactor", "string", fromNode},

	// 2.12 DataSourceDefinition
	{"DataSourceDefinition", "external", "object:ExternalDataSource", fromSpec},
	{"DataSourceDefinition", "internal", "object:InternalDataSource", fromSpec},
	{"ExternalDataSource", "ethOracle", "object:EthCallSpec", fromSpec},
	{"ExternalDataSource", "oracle", "object:OracleSpec", fromSpec},
	{"EthCallSpec", "address", "string", fromSpec},
	{"EthCallSpec", "abi", "string", fromSpec},
	{"EthCallSpec", "method", "string", fromSpec},
	{"EthCallSpec", "args", "array:any", fromSpec},
	{"EthCallSpec", "trigger", "object:EthCallTrigger", fromSpec},
	{"EthCallSpec", "requiredConfirmations", "uint64", fromSpec},
	{"EthCallSpec", "sourceChainId", "uint64", fromSpec},
	{"EthCallSpec", "normalisers", "array:object:Normaliser", fromSpec},
	{"EthCallSpec", "filters", "array:object:Filter", fromSpec},
	{"EthCallTrigger", "timeTrigger", "object:EthTimeTrigger", fromSpec},
	{"EthTimeTrigger", "every", "uint64", fromSpec},
	{"EthTimeTrigger", "initial", "uint64", fromSpec},
	{"EthTimeTrigger", "until", "uint64", fromSpec},
	{"Normaliser", "name", "string", fromSpec},
	{"Normaliser", "expression", "string", fromSpec},
	{"OracleSpec", "signers", "array:object:Signer", fromSpec},
	{"OracleSpec", "filters", "array:object:Filter", fromSpec},
	{"Signer", "ethAddress", "object:SignerEthAddress", fromSpec},
	{"Signer", "pubKey", "object:SignerPubKey", fromSpec},
	{"SignerEthAddress", "address", "string", fromSpec},
	{"SignerPubKey", "key", "string", fromSpec},
	{"Filter", "key", "object:PropertyKey", fromSpec},
	{"Filter", "conditions", "array:object:Condition", fromSpec},
	{"PropertyKey", "name", "string", fromSpec},
	{"PropertyKey", "type", "enum:PropertyKeyType", fromSpec},
	{"PropertyKey", "numberDecimalPlaces", "uint64", fromSpec},
	{"Condition", "operator", "enum:ConditionOperator", fromSpec},
	{"Condition", "value", "string", fromSpec},
	{"InternalDataSource", "time", "object:TimeDataSource", fromSpec},
	{"InternalDataSource", "timeTrigger", "object:TimeTriggerDataSource", fromSpec},
	{"TimeDataSource", "conditions", "array:object:Condition", fromSpec},
	{"TimeTriggerDataSource", "conditions", "array:object:Condition", fromSpec},
	{"TimeTriggerDataSource", "triggers", "array:object:InternalTimeTrigger", fromSpec},
	{"InternalTimeTrigger", "initial", "int64", fromSpec},
	{"InternalTimeTrigger", "every", "int64", fromSpec},
}

// wireKind classifies a property schema as one of the wire kinds above.
func wireKind(n *schemas.Node) string {
	n = n.Resolve()
	if t := n.NullableTarget(); t != nil {
		return wireKind(t)
	}
	if e := enumDefinition(n); e != nil {
		return "enum:" + e.Name
	}
	switch {
	case n.HasType("object"):
		return "object:" + n.Name
	case n.HasType("array"):
		if n.Items == nil {
			return "array:any"
		}
		return "array:" + wireKind(n.Items)
	case n.HasType("integer"):
		return "integer"
	case n.HasType("number"):
		return "number"
	case n.HasType("boolean"):
		return "boolean"
	case n.HasType("string"):
		switch n.Pattern {
		case schemas.MustLookup("Uint64").Pattern:
			return "uint64"
		case schemas.MustLookup("Int64").Pattern:
			return "int64"
		}
		return "string"
	}
	if len(n.AnyOf) > 0 {
		// A string, or "" (OptionalUrl): the kind of the branches that are
		// not the empty string, when they agree.
		kind := ""
		for _, b := range n.AnyOf {
			if r := b.Resolve(); r.HasConst && r.Const == "" && len(r.Types) == 0 {
				continue
			}
			k := wireKind(b)
			if kind != "" && k != kind {
				return "anyOf"
			}
			kind = k
		}
		return kind
	}
	if unconstrained(n) {
		return "any"
	}
	return "unknown"
}

// kindMatches reports whether got satisfies want: every digit-string kind is
// a string.
func kindMatches(want, got string) bool {
	if want == "string" {
		return got == "string" || got == "uint64" || got == "int64"
	}
	return want == got
}

func TestSpecFieldsHaveTheirWireKinds(t *testing.T) {
	for _, f := range specFields {
		t.Run(f.def+"."+f.field, func(t *testing.T) {
			def, err := schemas.Lookup(f.def)
			if err != nil {
				t.Fatalf("definition %s: %v", f.def, err)
			}
			p := def.Resolve().Property(f.field)
			if p == nil {
				t.Fatalf("%s has no property %q (%s field)", f.def, f.field, f.from)
			}
			if got := wireKind(p); !kindMatches(f.kind, got) {
				t.Errorf("%s.%s is %s on the wire, want %s", f.def, f.field, got, f.kind)
			}
		})
	}
}

func TestEverySchemaFieldIsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range specFields {
		key := f.def + "." + f.field
		if listed[key] {
			t.Errorf("%s is listed twice", key)
		}
		listed[key] = true
		if f.from != fromSpec && f.from != fromDesign && f.from != fromNode {
			t.Errorf("%s: unknown source %q", key, f.from)
		}
	}
	for _, name := range objectDefinitions(t) {
		for _, p := range schemas.MustLookup(name).Resolve().Properties {
			if !listed[name+"."+p.Name] {
				t.Errorf("%s.%s is not in specFields: add a row saying where it comes from", name, p.Name)
			}
		}
	}
}

// specEnums are the enumerations of spec section 2.13, with exactly the
// spec's values in the spec's order.
var specEnums = map[string][]string{
	"DispatchMetric": {
		"DISPATCH_METRIC_UNSPECIFIED", "DISPATCH_METRIC_MAKER_FEES_PAID", "DISPATCH_METRIC_MAKER_FEES_RECEIVED",
		"DISPATCH_METRIC_LP_FEES_RECEIVED", "DISPATCH_METRIC_MARKET_VALUE", "DISPATCH_METRIC_RELATIVE_RETURN",
		"DISPATCH_METRIC_RETURN_VOLATILITY", "DISPATCH_METRIC_VALIDATOR_RANKING", "DISPATCH_METRIC_REALISED_RETURN",
		"DISPATCH_METRIC_AVERAGE_NOTIONAL", "DISPATCH_METRIC_ELIGIBLE_ENTITIES",
	},
	"EntityScope": {"ENTITY_SCOPE_UNSPECIFIED", "ENTITY_SCOPE_INDIVIDUALS", "ENTITY_SCOPE_TEAMS"},
	"IndividualScope": {
		"INDIVIDUAL_SCOPE_UNSPECIFIED", "INDIVIDUAL_SCOPE_ALL", "INDIVIDUAL_SCOPE_IN_TEAM",
		"INDIVIDUAL_SCOPE_NOT_IN_TEAM", "INDIVIDUAL_SCOPE_AMM",
	},
	"DistributionStrategy": {
		"DISTRIBUTION_STRATEGY_UNSPECIFIED", "DISTRIBUTION_STRATEGY_PRO_RATA", "DISTRIBUTION_STRATEGY_RANK",
		"DISTRIBUTION_STRATEGY_RANK_LOTTERY",
	},
	"GovernanceTransferType": {
		"GOVERNANCE_TRANSFER_TYPE_UNSPECIFIED", "GOVERNANCE_TRANSFER_TYPE_ALL_OR_NOTHING",
		"GOVERNANCE_TRANSFER_TYPE_BEST_EFFORT",
	},
	"PeggedReference": {
		"PEGGED_REFERENCE_UNSPECIFIED", "PEGGED_REFERENCE_MID", "PEGGED_REFERENCE_BEST_BID", "PEGGED_REFERENCE_BEST_ASK",
	},
	"TimeInForce": {
		"TIME_IN_FORCE_UNSPECIFIED", "TIME_IN_FORCE_GTC", "TIME_IN_FORCE_GTT", "TIME_IN_FORCE_IOC",
		"TIME_IN_FORCE_FOK", "TIME_IN_FORCE_GFA", "TIME_IN_FORCE_GFN",
	},
	"Side":      {"SIDE_UNSPECIFIED", "SIDE_BUY", "SIDE_SELL"},
	"OrderType": {"TYPE_UNSPECIFIED", "TYPE_LIMIT", "TYPE_MARKET", "TYPE_NETWORK"},
	"StopOrderExpiryStrategy": {
		"EXPIRY_STRATEGY_UNSPECIFIED", "EXPIRY_STRATEGY_CANCELS", "EXPIRY_STRATEGY_SUBMIT",
	},
	"SizeOverrideSetting": {
		"SIZE_OVERRIDE_SETTING_UNSPECIFIED", "SIZE_OVERRIDE_SETTING_NONE", "SIZE_OVERRIDE_SETTING_POSITION",
	},
	"MarginMode": {"MODE_UNSPECIFIED", "MODE_CROSS_MARGIN", "MODE_ISOLATED_MARGIN"},
	"ConditionOperator": {
		"OPERATOR_UNSPECIFIED", "OPERATOR_EQUALS", "OPERATOR_GREATER_THAN", "OPERATOR_GREATER_THAN_OR_EQUAL",
		"OPERATOR_LESS_THAN", "OPERATOR_LESS_THAN_OR_EQUAL",
	},
	"PropertyKeyType": {
		"TYPE_UNSPECIFIED", "TYPE_EMPTY", "TYPE_INTEGER", "TYPE_STRING", "TYPE_BOOLEAN", "TYPE_DECIMAL",
		"TYPE_TIMESTAMP",
	},
	"LiquidityFeeMethod": {"METHOD_UNSPECIFIED", "METHOD_MARGINAL_COST", "METHOD_WEIGHTED_AVERAGE", "METHOD_CONSTANT"},
	"CompositePriceType": {
		"COMPOSITE_PRICE_TYPE_UNSPECIFIED", "COMPOSITE_PRICE_TYPE_WEIGHTED", "COMPOSITE_PRICE_TYPE_MEDIAN",
		"COMPOSITE_PRICE_TYPE_LAST_TRADE",
	},
	"AccountType": {
		"ACCOUNT_TYPE_UNSPECIFIED", "ACCOUNT_TYPE_INSURANCE", "ACCOUNT_TYPE_SETTLEMENT", "ACCOUNT_TYPE_MARGIN",
		"ACCOUNT_TYPE_GENERAL", "ACCOUNT_TYPE_FEES_INFRASTRUCTURE", "ACCOUNT_TYPE_FEES_LIQUIDITY",
		"ACCOUNT_TYPE_FEES_MAKER", "ACCOUNT_TYPE_BOND", "ACCOUNT_TYPE_EXTERNAL", "ACCOUNT_TYPE_GLOBAL_INSURANCE",
		"ACCOUNT_TYPE_GLOBAL_REWARD", "ACCOUNT_TYPE_PENDING_TRANSFERS", "ACCOUNT_TYPE_REWARD_MAKER_PAID_FEES",
		"ACCOUNT_TYPE_REWARD_MAKER_RECEIVED_FEES", "ACCOUNT_TYPE_REWARD_LP_RECEIVED_FEES",
		"ACCOUNT_TYPE_REWARD_MARKET_PROPOSERS", "ACCOUNT_TYPE_HOLDING", "ACCOUNT_TYPE_LP_LIQUIDITY_FEES",
		"ACCOUNT_TYPE_LIQUIDITY_FEES_BONUS_DISTRIBUTION", "ACCOUNT_TYPE_NETWORK_TREASURY",
		"ACCOUNT_TYPE_VESTING_REWARDS", "ACCOUNT_TYPE_VESTED_REWARDS", "ACCOUNT_TYPE_REWARD_RELATIVE_RETURN",
		"ACCOUNT_TYPE_REWARD_RETURN_VOLATILITY", "ACCOUNT_TYPE_REWARD_VALIDATOR_RANKING",
		"ACCOUNT_TYPE_PENDING_FEE_REFERRAL_REWARD", "ACCOUNT_TYPE_ORDER_MARGIN", "ACCOUNT_TYPE_REWARD_REALISED_RETURN",
		"ACCOUNT_TYPE_BUY_BACK_FEES", "ACCOUNT_TYPE_REWARD_AVERAGE_NOTIONAL", "ACCOUNT_TYPE_REWARD_ELIGIBLE_ENTITIES",
	},
}

func TestEnumerationsHaveExactlyTheSpecValues(t *testing.T) {
	if len(specEnums) != 17 {
		t.Fatalf("the spec has 17 enumerations, the table %d", len(specEnums))
	}
	for name, want := range specEnums {
		t.Run(name, func(t *testing.T) {
			n, err := schemas.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			if n.File != "enums.json" {
				t.Errorf("%s is in %s, want enums.json", name, n.File)
			}
			if !n.HasType("string") || len(n.Types) != 1 {
				t.Errorf("%s has types %v, want string", name, n.Types)
			}
			got := make([]string, len(n.Enum))
			for i, v := range n.Enum {
				got[i], _ = v.(string)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("values:\n got %q\nwant %q", got, want)
			}
			v := schemas.MustLoad(name)
			for _, value := range want {
				if err := v.Validate(encodeJSON(t, value)); err != nil {
					t.Errorf("%s rejected: %v", value, err)
				}
			}
			for _, bad := range []string{want[1] + "_X", "", "unspecified"} {
				if err := v.Validate(encodeJSON(t, bad)); err == nil {
					t.Errorf("%q accepted", bad)
				}
			}
			// Enums are their names on the wire, never their numbers.
			if err := v.Validate([]byte("1")); err == nil {
				t.Errorf("the number 1 accepted")
			}
		})
	}
}

func TestEnumsFileHoldsExactlyTheSpecEnumerations(t *testing.T) {
	var got []string
	for _, name := range schemas.Names() {
		if schemas.MustLookup(name).File == "enums.json" {
			got = append(got, name)
			if _, ok := specEnums[name]; !ok {
				t.Errorf("enums.json holds %s, which is not an enumeration of the spec", name)
			}
		}
	}
	if len(got) != len(specEnums) {
		t.Errorf("enums.json holds %d definitions, want the spec's %d", len(got), len(specEnums))
	}
}

func TestTxVersion(t *testing.T) {
	// TxVersion is the block explorer's, not the spec's: it lives beside the
	// transaction, and the explorer writes TX_VERSION_V3.
	n := schemas.MustLookup("TxVersion")
	if n.File != "transactions.json" {
		t.Errorf("TxVersion is in %s, want transactions.json", n.File)
	}
	tests := []struct {
		value string
		valid bool
	}{
		{"TX_VERSION_V3", true},
		{"TX_VERSION_V2", true},
		{"TX_VERSION_V4", false},
		{"3", false},
	}
	v := schemas.MustLoad("TxVersion")
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			if err := v.Validate(encodeJSON(t, tc.value)); (err == nil) != tc.valid {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tc.valid, err)
			}
		})
	}
}

// specTypedFields are the fields whose reference schema says more than the
// spec's type of them, with that type: every field the spec types uint64
// or int64 (section 1: "uint64 and int64 typed fields are noted per
// field"; a deployment may write each as a digit string or a JSON
// integer), and the fields of another type whose reference bounds or
// pattern the spec does not state. Copied from the spec's tables and prose;
// x-spec-types must say exactly this.
var specTypedFields = []struct{ def, field, specType string }{
	{"EthereumKeyRotation", "blockHeight", "uint64"},
	{"Transaction", "block", "uint64"},
	{"Transaction", "code", "int64"},
	{"AnnounceNode", "corePubKeyIndex", "int64"},
	{"AnnounceNode", "ethereumAddress", "string"}, // "Ethereum public key of the node": an address or a key
	{"AnnounceNode", "fromEpoch", "uint64"},
	{"Signature", "algo", "string"},
	{"Signature", "version", "int64"},
	{"OrderAmendment", "size", "uint64"},
	{"OrderAmendment", "sizeDelta", "int64"},
	{"OrderAmendment", "expiresAt", "int64"},
	{"StopOrderSetup", "expiresAt", "int64"},
	{"OrderSubmission", "size", "uint64"},
	{"OrderSubmission", "expiresAt", "int64"},
	{"IcebergOpts", "peakSize", "uint64"},
	{"IcebergOpts", "minimumVisibleSize", "uint64"},
	{"ProposalChange", "enactmentTimestamp", "int64"},
	{"AssetDetails", "decimals", "uint64"},
	{"Erc20Asset", "contractAddress", "string"},
	{"NewMarketConfiguration", "decimalPlaces", "uint64"},
	{"NewMarketConfiguration", "positionDecimalPlaces", "int64"},
	{"NewSpotMarketConfiguration", "decimalPlaces", "uint64"}, // 2.9: "same fields as the futures configuration for decimals"
	{"NewSpotMarketConfiguration", "positionDecimalPlaces", "int64"},
	{"PriceMonitoringTrigger", "horizon", "int64"},
	{"PriceMonitoringTrigger", "auctionExtension", "int64"},
	{"LiquidityMonitoringParameters", "auctionExtension", "int64"},
	{"TargetStakeParameters", "timeWindow", "int64"},
	{"TargetStakeParameters", "scalingFactor", "double"},
	{"LiquiditySlaParameters", "performanceHysteresisEpochs", "uint64"},
	{"LiquidationStrategy", "disposalTimeStep", "int64"},
	{"LiquidationStrategy", "fullDisposalSize", "uint64"},
	{"CompositePriceConfiguration", "decayPower", "uint64"},
	{"OneOffTransfer", "deliverOn", "int64"},
	{"RecurringTransfer", "startEpoch", "uint64"},
	{"RecurringTransfer", "endEpoch", "uint64"},
	{"DispatchStrategy", "windowLength", "uint64"},
	{"DispatchStrategy", "lockPeriod", "uint64"},
	{"DispatchStrategy", "transferInterval", "int32"},
	{"RankTableEntry", "startRank", "int64"},
	{"RankTableEntry", "shareRatio", "int64"},
	{"EthCallSpec", "requiredConfirmations", "uint64"},
	{"EthCallSpec", "sourceChainId", "uint64"},
	{"EthTimeTrigger", "every", "uint64"},
	{"EthTimeTrigger", "initial", "uint64"},
	{"EthTimeTrigger", "until", "uint64"},
	{"SignerEthAddress", "address", "string"},
	{"PropertyKey", "numberDecimalPlaces", "uint64"},
	{"InternalTimeTrigger", "initial", "int64"},
	{"InternalTimeTrigger", "every", "int64"},
}

// TestSpecTypesAgreeWithTheTable: x-spec-types in the files says exactly
// what specTypedFields says, and only of fields the spec shows.
func TestSpecTypesAgreeWithTheTable(t *testing.T) {
	want := map[string]string{}
	for _, f := range specTypedFields {
		key := f.def + "." + f.field
		if _, dup := want[key]; dup {
			t.Errorf("%s is listed twice", key)
		}
		want[key] = f.specType
	}
	got := map[string]string{}
	for _, name := range schemas.Names() {
		n := schemas.MustLookup(name).Resolve()
		for field, typ := range n.SpecTypes {
			got[name+"."+field] = typ
			if n.Property(field) == nil {
				t.Errorf("%s: x-spec-types names %s, which is no property", name, field)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: x-spec-types says %q, the spec %q", k, got[k], v)
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: x-spec-types says %q, the table nothing", k, v)
			}
		}
	}
	// Every spec field the table types uint64 or int64 is one of the
	// specFields rows, fromSpec.
	fromSpecRows := map[string]bool{}
	for _, f := range specFields {
		if f.from == fromSpec {
			fromSpecRows[f.def+"."+f.field] = true
		}
	}
	for key := range want {
		if !fromSpecRows[key] {
			t.Errorf("%s is not a field of the spec (specFields)", key)
		}
	}
	// And every field of the spec that specFields says is a uint64 or
	// int64 digit string is typed so by the table.
	for _, f := range specFields {
		if f.from == fromSpec && (f.kind == "uint64" || f.kind == "int64") && want[f.def+"."+f.field] != f.kind {
			t.Errorf("%s.%s is a %s of the spec, the table says %q", f.def, f.field, f.kind, want[f.def+"."+f.field])
		}
	}
}
