// Package offline trains and evaluates routing bundles: the RouterBench CSV
// (with its Python-literal prompts) and JSONL readers, k-means, bundle
// training with shrinkage, organisation training from uploaded data, the
// default bundle's corpus, the Avengers-Pro Table 1 evaluation, the
// task-level frontier and the per-query signal (leave-one-out ROC AUC).
//
// Ring: domain (offline tooling). It imports routing, never the reverse, and
// performs no I/O of its own: readers take an io.Reader and tables are written
// to an io.Writer; the `heddle bundle` commands in app open the files and
// parse the flags.
package offline
