package world

import (
	"math/bits"
	"strconv"
)

// amount is a whole, non-negative number of up to 128 bits: a game's reward
// total, which passes 2^64 after enough epochs (a reward is below 5·10^18,
// a total below that times the epochs, far below 2^128 for any world the
// sizes allow). It adds without allocating and formats into one string,
// where big.Int allocated for both, for every entry of every game.
type amount struct{ hi, lo uint64 }

// add adds v.
func (a *amount) add(v uint64) {
	var carry uint64
	a.lo, carry = bits.Add64(a.lo, v, 0)
	a.hi += carry
}

// addAmount adds b.
func (a *amount) addAmount(b amount) {
	var carry uint64
	a.lo, carry = bits.Add64(a.lo, b.lo, 0)
	a.hi, _ = bits.Add64(a.hi, b.hi, carry)
}

// e19 is 10^19, the largest power of ten below 2^64.
const e19 = 10_000_000_000_000_000_000

// String returns a in decimal.
func (a amount) String() string {
	var buf [40]byte // 2^128 has 39 digits
	return string(a.appendDecimal(buf[:0]))
}

// appendDecimal appends a in decimal to b.
func (a amount) appendDecimal(b []byte) []byte {
	if a.hi == 0 {
		return strconv.AppendUint(b, a.lo, 10)
	}
	// a = q·10^19 + r, r below 10^19: q's digits, then r's on 19 places.
	q := amount{hi: a.hi / e19}
	var r uint64
	q.lo, r = bits.Div64(a.hi%e19, a.lo, e19)
	b = q.appendDecimal(b)
	var digits [19]byte
	for i := len(digits) - 1; i >= 0; i-- {
		digits[i] = byte('0' + r%10)
		r /= 10
	}
	return append(b, digits[:]...)
}
