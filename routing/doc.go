// Package routing is the online router: it picks the model for a turn.
// Embedders, the bundle file format, the Avengers-Pro cluster scorer (arXiv
// 2508.12631), eligibility, organisation settings and bundles, session pins,
// the switch planner, handover summaries and the semantic response cache.
//
// Training, evaluation and the research tools (benchmark readers, k-means,
// ROC AUC, frontier analysis) live in routing/offline, which imports this
// package; this package never imports it (internal/rings enforces it).
//
// Ring: domain. The package performs no I/O of its own: embedders, bundles
// and stores are handed to it; outbound HTTP and hugot live in the adapters
// routing/hfpull and routing/hugotembed, which the composition root passes in.
package routing
