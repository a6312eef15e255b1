package records

import "strconv"

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

// The records' JSON is written by hand, field by field in the order of the
// struct tags, exactly as json.Marshal writes it (a test compares them):
// without reflection, so a world's games and snapshots are encoded several
// times faster.

// appendJSON appends the game's JSON encoding.
func (g *Game) appendJSON(b []byte) []byte {
	b = append(b, `{"epoch":"`...)
	b = strconv.AppendUint(b, g.Epoch, 10)
	b = append(b, `","id":`...)
	b = AppendQuoted(b, g.ID)
	b = append(b, `,"participants":"`...)
	b = strconv.AppendUint(b, g.Participants, 10)
	b = append(b, `","rewardAssetId":`...)
	b = AppendQuoted(b, g.RewardAssetID)
	if g.Individual != nil {
		b = append(b, `,"individual":{"individual":`...)
		b = appendIndividualEntries(b, g.Individual.Individual)
		b = append(b, '}')
	}
	if g.Team != nil {
		b = append(b, `,"team":{"team":`...)
		if g.Team.Team == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i := range g.Team.Team {
				if i > 0 {
					b = append(b, ',')
				}
				b = g.Team.Team[i].appendJSON(b)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendIndividualEntries(b []byte, entries []IndividualEntry) []byte {
	if entries == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = entries[i].appendJSON(b)
	}
	return append(b, ']')
}

// appendJSON appends the entry's JSON encoding.
func (e *IndividualEntry) appendJSON(b []byte) []byte {
	b = append(b, `{"individual":`...)
	b = AppendQuoted(b, e.Individual)
	b = append(b, ',')
	b = appendResult(b, e.Rank, e.RewardEarned, e.RewardEarnedQuantum, e.RewardMetric, e.TotalRewardsEarned, e.TotalRewardsEarnedQuantum, e.Volume)
	return append(b, '}')
}

// appendJSON appends the entry's JSON encoding.
func (e *TeamEntry) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendResult(b, e.Rank, e.RewardEarned, e.RewardEarnedQuantum, e.RewardMetric, e.TotalRewardsEarned, e.TotalRewardsEarnedQuantum, e.Volume)
	b = append(b, `,"team":{"teamId":`...)
	b = AppendQuoted(b, e.Team.TeamID)
	b = append(b, `,"membersParticipating":`...)
	b = appendIndividualEntries(b, e.Team.MembersParticipating)
	return append(b, "}}"...)
}

// appendResult appends the fields a player's and a team's result share,
// "rank" to "volume", in that order and without braces.
func appendResult(b []byte, rank uint64, earned, earnedQuantum, metric, total, totalQuantum, volume string) []byte {
	b = append(b, `"rank":"`...)
	b = strconv.AppendUint(b, rank, 10)
	b = append(b, `","rewardEarned":`...)
	b = AppendQuoted(b, earned)
	b = append(b, `,"rewardEarnedQuantum":`...)
	b = AppendQuoted(b, earnedQuantum)
	b = append(b, `,"rewardMetric":`...)
	b = AppendQuoted(b, metric)
	b = append(b, `,"totalRewardsEarned":`...)
	b = AppendQuoted(b, total)
	b = append(b, `,"totalRewardsEarnedQuantum":`...)
	b = AppendQuoted(b, totalQuantum)
	b = append(b, `,"volume":`...)
	return AppendQuoted(b, volume)
}

// appendJSON appends the snapshot's JSON encoding.
func (s *CoreSnapshot) appendJSON(b []byte) []byte {
	b = append(b, `{"blockHash":`...)
	b = AppendQuoted(b, s.BlockHash)
	b = append(b, `,"blockHeight":"`...)
	b = strconv.AppendUint(b, s.BlockHeight, 10)
	b = append(b, `","coreVersion":`...)
	b = AppendQuoted(b, s.CoreVersion)
	b = append(b, `,"protocolUpgradeBlock":`...)
	b = strconv.AppendBool(b, s.ProtocolUpgradeBlock)
	return append(b, '}')
}

// appendJSON appends the rotation's JSON encoding.
func (r *EthereumKeyRotation) appendJSON(b []byte) []byte {
	b = append(b, `{"blockHeight":"`...)
	b = strconv.AppendUint(b, r.BlockHeight, 10)
	b = append(b, `","newAddress":`...)
	b = AppendQuoted(b, r.NewAddress)
	b = append(b, `,"nodeId":`...)
	b = AppendQuoted(b, r.NodeID)
	b = append(b, `,"oldAddress":`...)
	b = AppendQuoted(b, r.OldAddress)
	return append(b, '}')
}
