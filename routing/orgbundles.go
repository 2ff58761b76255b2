package routing

import (
	"context"
	"slices"
	"time"
)

// Bounds of organisation training data (the zero values of
// offline.OrgTrainConfig, and the upload limits the admin API states).
const (
	DefaultOrgMaxBytes   = 10 << 20 // 10 MB of JSONL
	DefaultOrgMaxSamples = 20000
	DefaultOrgMinSamples = 50
	DefaultOrgMinModels  = 2
	// MaxOrgK caps the number of clusters of an organisation bundle.
	MaxOrgK = 32
)

// BundleInfo describes a stored organisation bundle (without its centroids).
type BundleInfo struct {
	ID        string    `json:"id"`
	OrgID     string    `json:"org_id"`
	Revision  string    `json:"revision"`
	Models    []string  `json:"models"`
	K         int       `json:"k"`
	Samples   int       `json:"samples"`
	DataHash  string    `json:"data_hash"`
	CreatedAt time.Time `json:"created_at"`
}

// InfoOf describes b as a bundle of orgID created at createdAt.
func InfoOf(orgID string, b *Bundle, createdAt time.Time) BundleInfo {
	return BundleInfo{
		ID: b.ID, OrgID: orgID, Revision: b.Revision, Models: slices.Clone(b.Models),
		K: len(b.Clusters), Samples: b.Training.Samples, DataHash: b.Training.DataHash, CreatedAt: createdAt,
	}
}

// OrgBundleStore keeps organisations' trained bundles. Implementations are
// safe for concurrent use and scope every query by orgID: no call ever
// returns or changes another organisation's bundle.
type OrgBundleStore interface {
	// PutBundle stores b for orgID (replacing orgID's bundle of the same id)
	// and returns its description. It blocks on the store.
	PutBundle(ctx context.Context, orgID string, b *Bundle) (BundleInfo, error)
	// GetBundle loads orgID's bundle id. It returns an error wrapping
	// ErrBundleNotFound when orgID has no such bundle, also when another
	// organisation has one, and ErrBundle when the stored bundle is unusable.
	GetBundle(ctx context.Context, orgID, id string) (*Bundle, error)
	// ListBundles describes orgID's bundles, newest first.
	ListBundles(ctx context.Context, orgID string) ([]BundleInfo, error)
}

// TrainSummary is a short account of a trained bundle for the admin.
type TrainSummary struct {
	Samples      int            `json:"samples"`
	K            int            `json:"k"`
	Seed         uint64         `json:"seed"`
	Inertia      float64        `json:"inertia"`
	ClusterSizes []int          `json:"cluster_sizes"`
	Models       []ModelSummary `json:"models"`
}

// ModelSummary is one model's mean quality and cost over the training data.
type ModelSummary struct {
	Model   string  `json:"model"`
	Quality float64 `json:"quality"`
	Cost    float64 `json:"cost_usd"`
	N       int     `json:"n"`
}

// SummaryOf summarises b's training.
func SummaryOf(b *Bundle) TrainSummary {
	s := TrainSummary{Samples: b.Training.Samples, K: len(b.Clusters), Seed: b.Training.Seed, Inertia: b.Training.Inertia}
	for _, c := range b.Clusters {
		s.ClusterSizes = append(s.ClusterSizes, c.Size)
	}
	for i, m := range b.Models {
		g := b.Global[i]
		s.Models = append(s.Models, ModelSummary{Model: m, Quality: g.Quality, Cost: g.Cost, N: g.N})
	}
	return s
}
