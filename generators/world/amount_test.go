package world

import (
	"math/big"
	"math/rand"
	"testing"
)

// TestAmountIsBigInt checks amount's sums and decimals against math/big,
// around the powers of two and ten where carries and digits change, and on
// random sums.
func TestAmountIsBigInt(t *testing.T) {
	check := func(a amount, want *big.Int) {
		t.Helper()
		if got := a.String(); got != want.String() {
			t.Fatalf("amount{%#x, %#x} = %s, want %s", a.hi, a.lo, got, want)
		}
	}
	toBig := func(a amount) *big.Int {
		x := new(big.Int).SetUint64(a.hi)
		return x.Lsh(x, 64).Add(x, new(big.Int).SetUint64(a.lo))
	}
	max64 := uint64(1<<64 - 1)
	for _, a := range []amount{
		{}, {lo: 1}, {lo: 9}, {lo: 10}, {lo: e19 - 1}, {lo: e19}, {lo: max64},
		{hi: 1}, {hi: 1, lo: max64}, {hi: e19 - 1, lo: max64}, {hi: e19}, {hi: e19, lo: 1},
		{hi: max64, lo: max64}, {hi: 5, lo: 42},
	} {
		check(a, toBig(a))
	}
	// Carries: adding to the largest low word.
	a := amount{lo: max64}
	a.add(1)
	if a != (amount{hi: 1}) {
		t.Errorf("2^64-1 + 1 = amount{%d, %d}, want 2^64", a.hi, a.lo)
	}
	b := amount{hi: 2, lo: max64}
	b.addAmount(amount{hi: 3, lo: 2})
	if b != (amount{hi: 6, lo: 1}) {
		t.Errorf("(2·2^64 + 2^64-1) + (3·2^64 + 2) = amount{%d, %d}, want amount{6, 1}", b.hi, b.lo)
	}

	rng := rand.New(rand.NewSource(1))
	var sum, team amount
	want, wantTeam := new(big.Int), new(big.Int)
	for i := 0; i < 20_000; i++ {
		v := rng.Uint64()
		sum.add(v)
		want.Add(want, new(big.Int).SetUint64(v))
		check(sum, want)
		team.addAmount(sum)
		wantTeam.Add(wantTeam, want)
		check(team, wantTeam)
	}
}

// BenchmarkAmount adds and formats an amount above 2^64.
func BenchmarkAmount(b *testing.B) {
	a := amount{hi: 3}
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		a.add(uint64(i) * 1e12)
		buf = a.appendDecimal(buf[:0])
	}
}
