// Package catalog holds Heddle's models, providers, provider bindings,
// capabilities and prices: an embedded default (catalog/default.json) plus an
// operator override file.
//
// Ring: kernel. No I/O beyond parsing the bytes it is given; it imports nothing
// of Heddle's.
package catalog
