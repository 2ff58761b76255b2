//go:build race

package wordvec

// raceEnabled: sync.Pool drops items at random under the race detector.
const raceEnabled = true
