package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/world"
)

// TestMemoryEstimateTracksMeasurements holds the estimate to the peak RSS
// of harness serve --scale S (VmHWM once it serves), measured on
// 2026-11-23 with Go 1.26.8. When the store changes, measure again and
// retune the constants in memory.go: the estimate may be above the
// measurement by 45 % (small worlds: the base is rounded up), never below it
// by more than 10 %.
func TestMemoryEstimateTracksMeasurements(t *testing.T) {
	tests := []struct {
		scale    float64
		measured uint64 // bytes
	}{
		{1, 53_584 << 10},
		{10, 236_068 << 10},
		{30, 637_828 << 10},
		{100, 1_998_620 << 10},
	}
	for _, tc := range tests {
		got := MemoryEstimate(tc.scale)
		ratio := float64(got) / float64(tc.measured)
		if ratio < 0.9 || ratio > 1.45 {
			t.Errorf("MemoryEstimate(%v) = %d MiB, measured %d MiB (ratio %.2f)", tc.scale, got>>20, tc.measured>>20, ratio)
		}
	}
}

// TestMemoryEstimateFormula checks the estimate adds every listing's rows,
// their JSON, their index (doubled for the heap's headroom), and the base.
func TestMemoryEstimateFormula(t *testing.T) {
	for _, scale := range []float64{0.01, 1, 7.5, 1000} {
		s := world.SizesFor(scale)
		games := uint64(s.Epochs * gamesPerEpoch)
		rows := games + uint64(s.Transactions+s.Snapshots+s.KeyRotations) + parameterRows
		want := games*gameBytes + uint64(s.Transactions)*transactionBytes + uint64(s.Snapshots)*snapshotBytes +
			uint64(s.KeyRotations)*rotationBytes + parameterRows*parameterBytes + rows*rowIndexBytes*heapHeadroom + baseBytes
		if got := MemoryEstimate(scale); got != want {
			t.Errorf("MemoryEstimate(%v) = %d, want %d", scale, got, want)
		}
	}
	if a, b := MemoryEstimate(100), MemoryEstimate(1000); b < 9*a {
		t.Errorf("MemoryEstimate(1000) = %d is not about ten times MemoryEstimate(100) = %d", b, a)
	}
}

// TestFixturesMemoryEstimate checks the estimate of a fixture directory
// counts each listing's rows (the files are mapped, not read), and fails on
// a directory it cannot read.
func TestFixturesMemoryEstimate(t *testing.T) {
	dir := t.TempDir()
	m, err := fixtures.Write(context.Background(), dir, genWorld(t), fixtures.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want uint64
	for _, l := range m.Listings {
		want += uint64(l.Count) * rowIndexBytes
	}
	want = want*heapHeadroom + baseBytes
	if got, err := FixturesMemoryEstimate(dir); err != nil || got != want {
		t.Errorf("FixturesMemoryEstimate = %d, %v; want %d", got, err, want)
	}

	if _, err := FixturesMemoryEstimate(t.TempDir()); err == nil {
		t.Error("a directory without a manifest: no error")
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, fixtures.ManifestFile), []byte("{not json"), 0o644)
	if _, err := FixturesMemoryEstimate(bad); err == nil {
		t.Error("a manifest that is not JSON: no error")
	}
}
