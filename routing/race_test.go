//go:build race

package routing

// raceEnabled: sync.Pool drops items at random under the race detector.
const raceEnabled = true
