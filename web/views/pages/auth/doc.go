// Package auth holds the console's log-in and sign-up pages. Both are plain
// HTML forms (they work without JavaScript) protected by a pre-session
// double-submit token.
//
// Ring: presentation. No I/O.
package auth
