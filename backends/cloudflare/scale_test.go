package cloudflare

import (
	"context"
	"fmt"
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

const scaleRecords = 10000

func scaleStep(f *fixture) *graph.Step {
	rrs := make([]*model.RRset, 0, scaleRecords)
	for i := range scaleRecords {
		rrs = append(rrs, rr(fmt.Sprintf("h%05d.%s", i, zoneName), "A", 300, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)))
	}
	return f.step(rrs...)
}

// TestRequestCounts pins the API calls of a 10,000-record zone: from
// empty, one zone lookup, one list page, ⌈10,000/chunk⌉ batches and the
// read-back of what was written (one list, in pages of DefaultPerPage);
// when converged, the zone lookup and the list pages only.
func TestRequestCounts(t *testing.T) {
	for _, chunk := range []int{DefaultChunkSize, MaxChunkSize} {
		t.Run(fmt.Sprintf("chunk %d", chunk), func(t *testing.T) {
			f := newFixture(t)
			f.fake.SetPaidPlan(chunk > DefaultChunkSize)
			f.drv.ChunkSize = chunk
			step := scaleStep(f)
			sp := f.plan(t, step)
			res := f.apply(t, sp)
			wantBatches := (scaleRecords + chunk - 1) / chunk
			pages := (scaleRecords + DefaultPerPage - 1) / DefaultPerPage
			want := map[string]int{cftest.EpZones: 1, cftest.EpList: 1 + pages, cftest.EpBatch: wantBatches}
			if got := f.fake.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("create from empty: got %v, want %v", got, want)
			}
			if res.Requests != wantBatches+pages || res.Writes != wantBatches || res.Reads != pages {
				t.Errorf("StepResult requests %d (reads %d, writes %d), want %d (reads %d, writes %d)",
					res.Requests, res.Reads, res.Writes, wantBatches+pages, pages, wantBatches)
			}
			if len(res.Problems) != 0 {
				t.Errorf("read-back found problems: %v", res.Problems[:min(3, len(res.Problems))])
			}
			f.fake.ResetCounts()
			again := f.plan(t, step)
			if len(again.Changes) != 0 {
				t.Fatalf("not converged: %d changes", len(again.Changes))
			}
			want = map[string]int{cftest.EpZones: 1, cftest.EpList: pages}
			if got := f.fake.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("converged diff: got %v, want %v", got, want)
			}
		})
	}
}

// BenchmarkCreate10k applies a 10,000-record zone from empty and reports
// the batch and list calls it took.
func BenchmarkCreate10k(b *testing.B) {
	for _, chunk := range []int{DefaultChunkSize, MaxChunkSize} {
		b.Run(fmt.Sprintf("chunk=%d", chunk), func(b *testing.B) {
			var batches, lists int
			for b.Loop() {
				b.StopTimer()
				f := newFixture(b)
				f.fake.SetPaidPlan(true)
				f.drv.ChunkSize = chunk
				step := scaleStep(f)
				b.StartTimer()
				f.apply(b, f.plan(b, step))
				batches, lists = f.fake.Count(cftest.EpBatch), f.fake.Count(cftest.EpList)
			}
			b.ReportMetric(float64(batches), "batch-calls")
			b.ReportMetric(float64(lists), "list-calls")
		})
	}
}

// BenchmarkConvergedDiff10k plans a converged 10,000-record zone.
func BenchmarkConvergedDiff10k(b *testing.B) {
	f := newFixture(b)
	f.fake.SetPaidPlan(true)
	f.drv.ChunkSize = MaxChunkSize
	step := scaleStep(f)
	f.apply(b, f.plan(b, step))
	var calls map[string]int
	for b.Loop() {
		f.fake.ResetCounts()
		if _, err := f.drv.Plan(context.Background(), step, f.run); err != nil {
			b.Fatal(err)
		}
		calls = f.fake.Counts()
	}
	b.ReportMetric(float64(calls[cftest.EpList]), "list-calls")
	b.ReportMetric(float64(calls[cftest.EpBatch]), "batch-calls")
}
