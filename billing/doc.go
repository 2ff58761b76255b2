// Package billing prices usage in integer micro-dollars, computes the baseline
// and savings of a request, and enforces budgets.
//
// Ring: domain. Pure logic over catalog prices; budget state is behind
// interfaces implemented by adapters.
package billing
