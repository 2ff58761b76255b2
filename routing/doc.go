// Package routing picks the model for a turn: embedders, trainable cluster
// bundles, the Avengers-Pro cluster scorer (arXiv 2508.12631), eligibility,
// and the train, evaluate and pull command-line entry points.
//
// Ring: domain. The package performs no I/O of its own on the request path:
// embedders and bundles are handed to it. The command-line functions in
// cli.go read and write the files their flags name; outbound HTTP and hugot
// live in the adapters routing/hfpull and routing/hugotembed, which the
// composition root passes in.
package routing
