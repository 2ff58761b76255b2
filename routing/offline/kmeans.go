package offline

import (
	"context"
	"github.com/heddle-gw/heddle/routing"
	"math"
	"math/rand/v2"
)

// KMeansResult is the outcome of a spherical k-means run.
type KMeansResult struct {
	// Centroids are unit length.
	Centroids [][]float32
	// Assign maps each point to its centroid.
	Assign []int
	// Inertia is the sum over points of 1 - cosine(point, centroid).
	Inertia float64
}

// KMeans clusters unit vectors by cosine similarity (spherical k-means) with
// k-means++ seeding, restarts runs from seed, seed+1, ..., and returns the run
// with the lowest inertia. It is deterministic for a given input and seed.
// Empty clusters are reseeded with the point farthest from its centroid.
func KMeans(ctx context.Context, points [][]float32, k int, seed uint64, restarts, maxIter int) (KMeansResult, error) {
	return kmeans(ctx, points, k, seed, restarts, maxIter, nil)
}

// kmeans is KMeans telling done (nil for none) the count of restarts run.
// It stops with ctx's error between iterations.
func kmeans(ctx context.Context, points [][]float32, k int, seed uint64, restarts, maxIter int, done func(int)) (KMeansResult, error) {
	if k <= 0 || len(points) == 0 {
		return KMeansResult{}, routing.ErrData
	}
	if k > len(points) {
		k = len(points)
	}
	if restarts <= 0 {
		restarts = 1
	}
	if maxIter <= 0 {
		maxIter = 100
	}
	best := KMeansResult{Inertia: math.Inf(1)}
	for r := 0; r < restarts; r++ {
		if err := ctx.Err(); err != nil {
			return KMeansResult{}, err
		}
		res, err := kmeansOnce(ctx, points, k, rand.New(rand.NewPCG(seed, uint64(r)+0x51ed)), maxIter)
		if err != nil {
			return KMeansResult{}, err
		}
		if res.Inertia < best.Inertia {
			best = res
		}
		if done != nil {
			done(r + 1)
		}
	}
	return best, nil
}

func kmeansOnce(ctx context.Context, points [][]float32, k int, rng *rand.Rand, maxIter int) (KMeansResult, error) {
	dim := len(points[0])
	cents := seedPlusPlus(points, k, rng)
	assign := make([]int, len(points))
	for i := range assign {
		assign[i] = -1
	}
	dist := make([]float64, len(points))
	var inertia float64
	for iter := 0; iter < maxIter; iter++ {
		if err := ctx.Err(); err != nil {
			return KMeansResult{}, err
		}
		changed := 0
		inertia = 0
		for i, p := range points {
			c, sim := nearest(p, cents)
			if c != assign[i] {
				assign[i] = c
				changed++
			}
			dist[i] = 1 - float64(sim)
			inertia += dist[i]
		}
		if changed == 0 && iter > 0 {
			break
		}
		sums := make([][]float64, k)
		counts := make([]int, k)
		for c := range sums {
			sums[c] = make([]float64, dim)
		}
		for i, p := range points {
			c := assign[i]
			counts[c]++
			for d, x := range p {
				sums[c][d] += float64(x)
			}
		}
		for c := range cents {
			if counts[c] == 0 {
				far := argmaxF(dist)
				copy(cents[c], points[far])
				dist[far] = 0
				continue
			}
			for d := range cents[c] {
				cents[c][d] = float32(sums[c][d])
			}
			routing.Normalise(cents[c])
		}
	}
	return KMeansResult{Centroids: cents, Assign: assign, Inertia: inertia}, nil
}

// seedPlusPlus picks k initial centroids: the first uniformly, each next one
// with probability proportional to its squared distance from the nearest
// centroid so far.
func seedPlusPlus(points [][]float32, k int, rng *rand.Rand) [][]float32 {
	cents := make([][]float32, 0, k)
	first := rng.IntN(len(points))
	cents = append(cents, append([]float32(nil), points[first]...))
	d2 := make([]float64, len(points))
	for i, p := range points {
		d2[i] = sqDist(p, cents[0])
	}
	for len(cents) < k {
		var total float64
		for _, d := range d2 {
			total += d
		}
		next := 0
		if total <= 0 {
			next = rng.IntN(len(points))
		} else {
			x := rng.Float64() * total
			for i, d := range d2 {
				x -= d
				if x <= 0 {
					next = i
					break
				}
				next = i
			}
		}
		c := append([]float32(nil), points[next]...)
		cents = append(cents, c)
		for i, p := range points {
			if d := sqDist(p, c); d < d2[i] {
				d2[i] = d
			}
		}
	}
	return cents
}

// nearest returns the centroid with the highest cosine similarity to p (the
// lowest index on ties) and that similarity.
func nearest(p []float32, cents [][]float32) (int, float32) {
	best, bestSim := 0, float32(math.Inf(-1))
	for c, cent := range cents {
		if s := routing.Similarity(p, cent); s > bestSim {
			best, bestSim = c, s
		}
	}
	return best, bestSim
}

func sqDist(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return s
}

func argmaxF(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}
