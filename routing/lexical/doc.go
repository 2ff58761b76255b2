// Package lexical is Heddle's built-in embedder, lexical-v1: hashed word
// unigrams and bigrams and character 3-5-grams, sublinear term frequency and an
// IDF table learned when a routing bundle is trained and stored in that bundle.
// It needs no download, is deterministic, and embeds a 1 kB prompt in tens of
// microseconds.
//
// Ring: domain (a leaf of routing). No I/O; it imports nothing of Heddle's.
package lexical
