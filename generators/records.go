package generators

// Record types of the five listings. Their JSON encoding is the wire shape
// the spec gives (field order included); 64-bit integers are strings.

// Game is one game in one epoch. Exactly one of Individual and Team is set.
type Game struct {
	Epoch         uint64              `json:"epoch,string"`
	ID            string              `json:"id"`
	Participants  uint64              `json:"participants,string"`
	RewardAssetID string              `json:"rewardAssetId"`
	Individual    *IndividualEntities `json:"individual,omitempty"`
	Team          *TeamEntities       `json:"team,omitempty"`

	// Raw, when set, is the record exactly as read from fixtures; it is
	// served as is.
	Raw []byte `json:"-"`
}

// IndividualEntities holds the results of a game played by individuals.
type IndividualEntities struct {
	Individual []IndividualEntry `json:"individual"`
}

// TeamEntities holds the results of a game played by teams.
type TeamEntities struct {
	Team []TeamEntry `json:"team"`
}

// IndividualEntry is one party's result in a game.
type IndividualEntry struct {
	Individual                string `json:"individual"`
	Rank                      uint64 `json:"rank,string"`
	RewardEarned              string `json:"rewardEarned"`
	RewardEarnedQuantum       string `json:"rewardEarnedQuantum"`
	RewardMetric              string `json:"rewardMetric"`
	TotalRewardsEarned        string `json:"totalRewardsEarned"`
	TotalRewardsEarnedQuantum string `json:"totalRewardsEarnedQuantum"`
	Volume                    string `json:"volume"`
}

// TeamEntry is one team's result in a game.
type TeamEntry struct {
	Rank                      uint64            `json:"rank,string"`
	RewardEarned              string            `json:"rewardEarned"`
	RewardEarnedQuantum       string            `json:"rewardEarnedQuantum"`
	RewardMetric              string            `json:"rewardMetric"`
	TotalRewardsEarned        string            `json:"totalRewardsEarned"`
	TotalRewardsEarnedQuantum string            `json:"totalRewardsEarnedQuantum"`
	Volume                    string            `json:"volume"`
	Team                      TeamParticipation `json:"team"`
}

// TeamParticipation names a team and the members that took part.
type TeamParticipation struct {
	TeamID               string            `json:"teamId"`
	MembersParticipating []IndividualEntry `json:"membersParticipating"`
}

// Scope returns the game's entity scope name.
func (g *Game) Scope() string {
	if g.Team != nil {
		return "ENTITY_SCOPE_TEAMS"
	}
	return "ENTITY_SCOPE_INDIVIDUALS"
}

// TeamIDs returns the teams that took part in a team game.
func (g *Game) TeamIDs() []string {
	if g.Team == nil {
		return nil
	}
	ids := make([]string, len(g.Team.Team))
	for i, t := range g.Team.Team {
		ids[i] = t.Team.TeamID
	}
	return ids
}

// PartyIDs returns every party that took part: the individuals of an
// individual game, the participating members of a team game.
func (g *Game) PartyIDs() []string {
	var ids []string
	if g.Individual != nil {
		for _, e := range g.Individual.Individual {
			ids = append(ids, e.Individual)
		}
	}
	if g.Team != nil {
		for _, t := range g.Team.Team {
			for _, m := range t.Team.MembersParticipating {
				ids = append(ids, m.Individual)
			}
		}
	}
	return ids
}

// CoreSnapshot is a snapshot of the core state.
type CoreSnapshot struct {
	BlockHash            string `json:"blockHash"`
	BlockHeight          uint64 `json:"blockHeight,string"`
	CoreVersion          string `json:"coreVersion"`
	ProtocolUpgradeBlock bool   `json:"protocolUpgradeBlock"`

	Raw []byte `json:"-"`
}

// EthereumKeyRotation is one change of a validator node's Ethereum key.
type EthereumKeyRotation struct {
	BlockHeight uint64 `json:"blockHeight,string"`
	NewAddress  string `json:"newAddress"`
	NodeID      string `json:"nodeId"`
	OldAddress  string `json:"oldAddress"`

	Raw []byte `json:"-"`
}

// NetworkParameter is a parameter key and its value.
type NetworkParameter struct {
	Key   string `json:"key"`
	Value string `json:"value"`

	Raw []byte `json:"-"`
}

// Transaction is a blockchain transaction. JSON is the whole record as
// served; the other fields are the keys the listing sorts and filters by.
type Transaction struct {
	Block     uint64
	Index     uint32
	Type      string
	Submitter string
	Code      int32
	// Receivers are the parties a command names as receivers: the
	// destination of a governance transfer to a party's general account.
	Receivers []string
	JSON      []byte
}
