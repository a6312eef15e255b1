package world

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/generators/records"
)

// TestQuantumAndHundredths checks the game amount formats against their
// first, plain implementations.
func TestQuantumAndHundredths(t *testing.T) {
	plainQuantum := func(amount string, decimals int) string {
		for len(amount) <= decimals {
			amount = "0" + amount
		}
		whole, frac := amount[:len(amount)-decimals], amount[len(amount)-decimals:]
		if len(frac) > 6 {
			frac = frac[:6]
		}
		frac = strings.TrimRight(frac, "0")
		if frac == "" {
			return whole
		}
		return whole + "." + frac
	}
	tests := []struct {
		amount   string
		decimals int
		want     string
	}{
		{"", 0, "0"},
		{"0", 0, "0"},
		{"7", 0, "7"},
		{"0", 6, "0"},
		{"5", 6, "0.000005"},
		{"1234567", 6, "1.234567"},
		{"1000000", 6, "1"},
		{"1200000", 6, "1.2"},
		{"1", 18, "0"},
		{"1234567890123", 18, "0.000001"},
		{"757860910659511316", 6, "757860910659.511316"},
		{"2456111001302010072", 18, "2.456111"},
		{"511039216249509470", 6, "511039216249.50947"},
		{"100000000000000000000", 18, "100"},
	}
	for _, tc := range tests {
		if got := quantum(tc.amount, tc.decimals); got != tc.want {
			t.Errorf("quantum(%q, %d) = %q, want %q", tc.amount, tc.decimals, got, tc.want)
		}
		if got := plainQuantum(tc.amount, tc.decimals); got != tc.want {
			t.Errorf("the table is wrong: plain quantum(%q, %d) = %q", tc.amount, tc.decimals, got)
		}
	}
	g := random.New(3)
	for i := 0; i < 5000; i++ {
		amount := strconv.FormatUint(g.Uint64()>>uint(g.Intn(64)), 10)
		for _, d := range []int{0, 1, 6, 18, 30} {
			if got, want := quantum(amount, d), plainQuantum(amount, d); got != want {
				t.Fatalf("quantum(%q, %d) = %q, want %q", amount, d, got, want)
			}
		}
		v := g.Between(0, 1<<40)
		want := strconv.FormatInt(v/100, 10) + "." + string([]byte{byte('0' + v%100/10), byte('0' + v%10)})
		if got := hundredths(v); got != want {
			t.Fatalf("hundredths(%d) = %q, want %q", v, got, want)
		}
	}
}

// TestRecordJSONIsJSONMarshal checks the hand-written encoders of the records
// against encoding/json: every record of a few worlds, and records with the
// shapes the generator never makes (nil lists, characters to escape).
func TestRecordJSONIsJSONMarshal(t *testing.T) {
	check := func(what string, rec any) {
		t.Helper()
		want, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if got := records.RecordJSON(rec); !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
		}
		// AppendRecordJSON appends the same bytes after what b holds.
		prefix := []byte("[prefix]")
		if got := records.AppendRecordJSON(prefix, rec); !bytes.Equal(got, append([]byte("[prefix]"), want...)) {
			t.Fatalf("%s: AppendRecordJSON:\n got %s\nwant [prefix]%s", what, got, want)
		}
	}
	odd := `a"b\c<d>&e` + "\n\u2028é\xff"
	tests := []struct {
		name string
		rec  any
	}{
		{"empty game", &records.Game{}},
		{"game with nil individual list", &records.Game{Epoch: 1, Individual: &records.IndividualEntities{}}},
		{"game with nil team list", &records.Game{Epoch: 1, Team: &records.TeamEntities{}}},
		{"game with both scopes", &records.Game{Epoch: 2, Individual: &records.IndividualEntities{Individual: []records.IndividualEntry{{}}},
			Team: &records.TeamEntities{Team: []records.TeamEntry{{}, {Team: records.TeamParticipation{MembersParticipating: []records.IndividualEntry{}}}}}}},
		{"game with odd strings", &records.Game{Epoch: 1<<64 - 1, ID: odd, Participants: 3, RewardAssetID: odd,
			Team: &records.TeamEntities{Team: []records.TeamEntry{{Rank: 7, RewardEarned: odd, RewardEarnedQuantum: odd, RewardMetric: odd,
				TotalRewardsEarned: odd, TotalRewardsEarnedQuantum: odd, Volume: odd,
				Team: records.TeamParticipation{TeamID: odd, MembersParticipating: []records.IndividualEntry{{Individual: odd, Rank: 1, Volume: odd}}}}}}}},
		{"empty snapshot", &records.CoreSnapshot{}},
		{"snapshot", &records.CoreSnapshot{BlockHash: odd, BlockHeight: 1<<64 - 1, CoreVersion: odd, ProtocolUpgradeBlock: true}},
		{"empty rotation", &records.EthereumKeyRotation{}},
		{"rotation", &records.EthereumKeyRotation{BlockHeight: 9, NewAddress: odd, NodeID: odd, OldAddress: odd}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { check(tc.name, tc.rec) })
	}
	small, err := Generate(Options{Seed: 5, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []*World{mustDefaultWorld(t), small} {
		for i := range w.Games {
			check(fmt.Sprintf("game %d", i), &w.Games[i])
		}
		for i := range w.Snapshots {
			check(fmt.Sprintf("snapshot %d", i), &w.Snapshots[i])
		}
		for i := range w.KeyRotations {
			check(fmt.Sprintf("rotation %d", i), &w.KeyRotations[i])
		}
	}
	// Records read from fixtures keep their bytes.
	raw := []byte(`{"epoch":"1", "id":"x"}`)
	for _, rec := range []any{&records.Game{Epoch: 2, Raw: raw}, &records.CoreSnapshot{BlockHeight: 2, Raw: raw},
		&records.EthereumKeyRotation{BlockHeight: 2, Raw: raw}, &records.NetworkParameter{Key: "k", Raw: raw}, &records.Transaction{JSON: raw}} {
		if got := records.RecordJSON(rec); !bytes.Equal(got, raw) {
			t.Errorf("a %T with Raw: got %s, want its Raw", rec, got)
		}
		if got := records.AppendRecordJSON([]byte("x"), rec); !bytes.Equal(got, append([]byte("x"), raw...)) {
			t.Errorf("AppendRecordJSON of a %T with Raw: got %s, want x and its Raw", rec, got)
		}
	}
}

// TestByVolumeIsAStableSort checks the games' ranking against
// sort.SliceStable, on volumes with many ties.
func TestByVolumeIsAStableSort(t *testing.T) {
	g := random.New(9)
	for round := 0; round < 2000; round++ {
		n := g.Intn(14)
		vols := make([]int64, n)
		ids := make([]int, n)
		for i := range vols {
			vols[i], ids[i] = g.Between(0, 4), i
		}
		want := append([]int(nil), ids...)
		sort.SliceStable(want, func(a, b int) bool { return vols[want[a]] > vols[want[b]] })
		got, gotVols := append([]int(nil), ids...), append([]int64(nil), vols...)
		byVolume(got, gotVols)
		for i := range want {
			if got[i] != want[i] || gotVols[i] != vols[want[i]] {
				t.Fatalf("volumes %v: order %v, want %v", vols, got, want)
			}
		}
	}
}
