// Package orgs holds the console's organisation switcher: the signed-in
// user's organisations with their role, a switch button for each, and a form
// that creates a new one.
//
// Ring: presentation. No I/O.
package orgs
