// Package rings holds the test that enforces STYLE.md's import rings over
// the whole module. It has no code of its own.
package rings
