package offline

import (
	"context"
	"errors"
	"github.com/heddle-gw/heddle/routing"
	"math/rand/v2"
	"testing"
)

// blobs returns n points around each of the given unit directions, noise sd.
func blobs(centres [][]float32, n int, sd float64, seed uint64) ([][]float32, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var pts [][]float32
	var label []int
	for c, centre := range centres {
		for i := 0; i < n; i++ {
			p := make([]float32, len(centre))
			for d := range p {
				p[d] = centre[d] + float32(rng.NormFloat64()*sd)
			}
			routing.Normalise(p)
			pts = append(pts, p)
			label = append(label, c)
		}
	}
	// Shuffle so order does not give the clusters away.
	rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i]; label[i], label[j] = label[j], label[i] })
	return pts, label
}

func axis(dim, i int) []float32 {
	v := make([]float32, dim)
	v[i] = 1
	return v
}

func TestKMeansRecoversBlobs(t *testing.T) {
	centres := [][]float32{axis(8, 0), axis(8, 3), axis(8, 5), axis(8, 7)}
	pts, label := blobs(centres, 50, 0.15, 42)
	res, err := KMeans(context.Background(), pts, 4, 7, 5, 100)
	if err != nil {
		t.Fatal(err)
	}
	// Every blob must map to exactly one cluster and every cluster to one blob.
	blobToCluster := map[int]int{}
	clusterToBlob := map[int]int{}
	for i, l := range label {
		c := res.Assign[i]
		if prev, ok := blobToCluster[l]; ok && prev != c {
			t.Fatalf("blob %d split across clusters %d and %d", l, prev, c)
		}
		if prev, ok := clusterToBlob[c]; ok && prev != l {
			t.Fatalf("cluster %d mixes blobs %d and %d", c, prev, l)
		}
		blobToCluster[l], clusterToBlob[c] = c, l
	}
	if len(blobToCluster) != 4 {
		t.Fatalf("found %d clusters, want 4", len(blobToCluster))
	}
	// Each centroid points at its blob's centre.
	for l, c := range blobToCluster {
		if s := routing.Similarity(res.Centroids[c], centres[l]); s < 0.95 {
			t.Errorf("centroid %d vs blob %d: cosine %v", c, l, s)
		}
	}
	if res.Inertia <= 0 || res.Inertia > 0.1*float64(len(pts)) {
		t.Errorf("inertia %v", res.Inertia)
	}
}

func TestKMeansDeterministicAndRestarts(t *testing.T) {
	pts, _ := blobs([][]float32{axis(6, 0), axis(6, 1), axis(6, 2)}, 30, 0.4, 3)
	ctx := context.Background()
	a, _ := KMeans(ctx, pts, 5, 11, 3, 50)
	b, _ := KMeans(ctx, pts, 5, 11, 3, 50)
	if a.Inertia != b.Inertia {
		t.Fatalf("same seed, different inertia: %v vs %v", a.Inertia, b.Inertia)
	}
	for i := range a.Assign {
		if a.Assign[i] != b.Assign[i] {
			t.Fatal("same seed, different assignment")
		}
	}
	// More restarts never do worse: the best of 8 includes the first 3.
	many, _ := KMeans(ctx, pts, 5, 11, 8, 50)
	if many.Inertia > a.Inertia {
		t.Fatalf("8 restarts inertia %v > 3 restarts %v", many.Inertia, a.Inertia)
	}
	one, _ := KMeans(ctx, pts, 5, 11, 1, 50)
	if a.Inertia > one.Inertia {
		t.Fatalf("3 restarts inertia %v > 1 restart %v", a.Inertia, one.Inertia)
	}
}

func TestKMeansEdges(t *testing.T) {
	ctx := context.Background()
	pts := [][]float32{axis(3, 0), axis(3, 1)}
	res, err := KMeans(ctx, pts, 5, 1, 1, 10)
	if err != nil || len(res.Centroids) != 2 {
		t.Fatalf("k > n: %d centroids, err %v", len(res.Centroids), err)
	}
	if _, err := KMeans(ctx, nil, 3, 1, 1, 10); !errors.Is(err, routing.ErrData) {
		t.Fatalf("no points: err %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := KMeans(cctx, pts, 2, 1, 1, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: err %v", err)
	}
}
