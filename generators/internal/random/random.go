package random

import (
	"hash/fnv"
	"math/rand"

	"github.com/brianvoe/gofakeit/v6"
)

// splitMix is a small, fast rand.Source64 (SplitMix64) that can be reseeded
// without allocating, so every record can draw from its own stream.
type splitMix struct{ state uint64 }

func (s *splitMix) Seed(seed int64) { s.state = uint64(seed) }

func (s *splitMix) Uint64() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (s *splitMix) Int63() int64 { return int64(s.Uint64() >> 1) }

// Stream is a reseedable random stream with a gofakeit Faker on top of it.
// It is not safe for concurrent use.
type Stream struct {
	src   *splitMix
	r     *rand.Rand
	faker *gofakeit.Faker
}

// New returns a stream starting at seed.
func New(seed int64) *Stream {
	src := &splitMix{}
	src.Seed(seed)
	f := gofakeit.NewCustom(src)
	return &Stream{src: src, r: f.Rand, faker: f}
}

// Reseed restarts the stream at seed.
func (g *Stream) Reseed(seed int64) { g.src.Seed(seed) }

// Seed mixes a world seed, a stream name and an index into the seed of
// one record's stream, so that record i of a kind is the same whatever order
// records are generated in.
func Seed(seed int64, stream string, i uint64) int64 {
	h := fnv.New64a()
	h.Write([]byte(stream))
	x := uint64(seed) ^ h.Sum64()
	x ^= i * 0x9e3779b97f4a7c15
	// One SplitMix64 round spreads nearby inputs apart.
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return int64(x ^ (x >> 31))
}

// Uint64 returns 64 random bits, straight from the source.
func (g *Stream) Uint64() uint64 { return g.src.Uint64() }

// Float64 returns a number in [0, 1).
func (g *Stream) Float64() float64 { return g.r.Float64() }

// Faker returns the gofakeit Faker drawing from the stream.
func (g *Stream) Faker() *gofakeit.Faker { return g.faker }

// Intn returns a number in [0, n).
func (g *Stream) Intn(n int) int { return g.r.Intn(n) }

// Between returns a number in [lo, hi].
func (g *Stream) Between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.r.Int63n(hi-lo+1)
}

// Chance reports true with probability p.
func (g *Stream) Chance(p float64) bool { return g.r.Float64() < p }

// Pick returns a random element of list.
func Pick[T any](g *Stream, list []T) T { return list[g.r.Intn(len(list))] }

// Digits of the hex strings Hex and AppendHex write.
const (
	HexDigits      = "0123456789abcdef"
	UpperHexDigits = "0123456789ABCDEF"
)

// Hex returns n random lowercase hex characters.
func (g *Stream) Hex(n int) string {
	var buf [128]byte // on the stack: the string is the only allocation
	return string(g.AppendHex(buf[:0], n, HexDigits))
}

// AppendHex appends n random hex characters from digits to b.
func (g *Stream) AppendHex(b []byte, n int, digits string) []byte {
	for i := 0; i < n; i += 16 {
		v := g.src.Uint64()
		for j := i; j < n && j < i+16; j++ {
			b = append(b, digits[v&0xf])
			v >>= 4
		}
	}
	return b
}

// Weighted picks an index by weight.
func (g *Stream) Weighted(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := g.r.Intn(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}
