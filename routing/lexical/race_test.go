//go:build race

package lexical

// raceEnabled: sync.Pool drops items at random under the race detector.
const raceEnabled = true
