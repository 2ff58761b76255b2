// Package dispatchtest holds the fakes other packages' tests use with the
// dispatch executor: a scriptable, fault-injecting fake upstream (an httptest
// server speaking OpenAI Chat Completions and Anthropic Messages), an
// in-memory Sink, a sink that blocks forever, a fake clock, static
// credentials and a recording StreamWriter.
//
// Ring: test support. It does loopback I/O only (its own httptest servers).
package dispatchtest
