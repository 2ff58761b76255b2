// Package app is Heddle's composition root: configuration, wiring, the server
// lifecycle and the CLI subcommands. It is the only package that constructs
// adapters (databases, ClickHouse, providers, embedders).
package app
