//go:build race

package analytics_test

// raceEnabled: sync.Pool drops items at random under the race detector.
const raceEnabled = true
