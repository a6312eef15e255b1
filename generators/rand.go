package generators

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

// rng is a reseedable random stream with a gofakeit Faker on top of it.
type rng struct {
	src   *splitMix
	r     *rand.Rand
	faker *gofakeit.Faker
}

func newRNG(seed int64) *rng {
	src := &splitMix{}
	src.Seed(seed)
	f := gofakeit.NewCustom(src)
	return &rng{src: src, r: f.Rand, faker: f}
}

// reseed restarts the stream at seed.
func (g *rng) reseed(seed int64) { g.src.Seed(seed) }

// deriveSeed mixes a world seed, a stream name and an index into the seed of
// one record's stream, so that record i of a kind is the same whatever order
// records are generated in.
func deriveSeed(seed int64, stream string, i uint64) int64 {
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

// intn returns a number in [0, n).
func (g *rng) intn(n int) int { return g.r.Intn(n) }

// between returns a number in [lo, hi].
func (g *rng) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.r.Int63n(hi-lo+1)
}

// chance reports true with probability p.
func (g *rng) chance(p float64) bool { return g.r.Float64() < p }

// pick returns a random element of list.
func pick[T any](g *rng, list []T) T { return list[g.r.Intn(len(list))] }

const (
	hexDigits      = "0123456789abcdef"
	upperHexDigits = "0123456789ABCDEF"
)

// hex returns n random lowercase hex characters.
func (g *rng) hex(n int) string {
	var buf [128]byte // on the stack: the string is the only allocation
	return string(g.appendHex(buf[:0], n, hexDigits))
}

// appendHex appends n random hex characters from digits to b.
func (g *rng) appendHex(b []byte, n int, digits string) []byte {
	for i := 0; i < n; i += 16 {
		v := g.src.Uint64()
		for j := i; j < n && j < i+16; j++ {
			b = append(b, digits[v&0xf])
			v >>= 4
		}
	}
	return b
}

// weighted picks an index by weight.
func (g *rng) weighted(weights []int) int {
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
